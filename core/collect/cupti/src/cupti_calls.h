#pragma once
// The CUPTI calls of a tracing session, kept apart from the session bookkeeping in cupti_source.cpp.
#include <cupti.h>

#include "activity_dispatch.h"
#include "gtv/base/expected.h"
#include "gtv/collect/cupti_source.h"

namespace gtv::collect::cupti {

// "cuptiSubscribe failed: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (another profiler ...)".
[[nodiscard]] std::string describe_failure(const char* call, CUptiResult result);

// Subscribes (so a second CUPTI client fails loudly instead of silently stealing the buffers), registers the
// buffer callbacks, enables the kinds and switches off the noisy API ids. A required kind that cannot be
// enabled is an Error; an optional one becomes a note through sink.on_note.
[[nodiscard]] Status enable_tracing(const CuptiOptions& options, CUpti_BuffersCallbackRequestFunc requested,
                                    CUpti_BuffersCallbackCompleteFunc completed, ActivitySink& sink);
// Disables every kind enable_tracing enabled. Safe to call when nothing is enabled.
void disable_kinds();
// Unsubscribes (after the last flush). Safe to call when not subscribed.
void unsubscribe();
// Sets NVTX_INJECTION64_PATH to the loaded libcupti if unset; the note says what happened.
[[nodiscard]] std::string inject_nvtx();
// cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED): delivers every buffer, complete or not.
[[nodiscard]] Status flush_all();

// Whether the CUDA driver library can be loaded (CUPTI fails with an unhelpful CUPTI_ERROR_UNKNOWN without it).
[[nodiscard]] bool cuda_driver_present();

// cuptiGetCallbackName with a cache; the CUPTI call is made without holding the cache lock.
[[nodiscard]] ApiNamer cached_api_namer();

}  // namespace gtv::collect::cupti
