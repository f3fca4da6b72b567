#pragma once
// Bad input (unreadable file, a change that does not apply): Python's gtv.GtvError, with the CLI's one-line message.
#include <stdexcept>

namespace gtv::python {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gtv::python
