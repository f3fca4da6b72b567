#pragma once
// gtv._core's rank summaries: summarize one rank's trace, read and write .gtvsum bytes, reduce the summaries of a
// run into the cross-rank report, as `gtv-cli summarize` and `gtv-cli reduce` do. The GIL is released while the
// core works.
#include <nanobind/nanobind.h>

namespace gtv::python {

void bind_ranks(nanobind::module_& m);

}  // namespace gtv::python
