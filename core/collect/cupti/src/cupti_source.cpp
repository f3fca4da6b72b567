#include "gtv/collect/cupti_source.h"

#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "activity_dispatch.h"
#include "cupti_calls.h"
#include "gtv/collect/thread_id.h"

namespace gtv::collect {
namespace {

// CUPTI's buffer callbacks are plain C functions with no user pointer, so the one active session lives here.
// The mutex only guards the pointer; callbacks copy the shared_ptr and work without holding it, so a forced
// flush (which calls bufferCompleted on the flushing thread) never deadlocks.
struct Session {
  std::unique_ptr<cupti::ActivityDispatcher> dispatcher;
  ActivitySink* sink = nullptr;
  std::atomic<std::size_t> dropped{0};
  std::atomic<std::int64_t> buffer_ns{0};
  std::atomic<std::int64_t> buffers{0};
};

struct Globals {
  std::mutex mutex;
  std::shared_ptr<Session> session;     // set while a CuptiSource is started
  std::size_t buffer_bytes = 8u << 20;  // read by buffer_requested, which may run after stop()
};

// Never destroyed: CUPTI may call back during process exit, after static destructors have run.
Globals& globals() {
  static Globals* instance = new Globals;
  return *instance;
}

std::shared_ptr<Session> current_session() {
  std::lock_guard lock(globals().mutex);
  return globals().session;
}

constexpr std::size_t kMinBufferBytes = std::size_t{1} << 20;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  std::size_t bytes = 0;
  {
    std::lock_guard lock(globals().mutex);
    bytes = globals().buffer_bytes;
  }
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, bytes));
  *size = *buffer != nullptr ? bytes : 0;  // size 0: CUPTI drops records and counts them
  *max_records = 0;                        // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t /*size*/,
                               std::size_t valid_bytes) {
  if (std::shared_ptr<Session> session = current_session()) {
    const auto began = std::chrono::steady_clock::now();
    session->dispatcher->handle_buffer(buffer, valid_bytes, cuptiActivityGetNextRecord);
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0) {
      session->dropped += dropped;
      session->sink->on_dropped(dropped);
    }
    session->buffer_ns +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - began).count();
    ++session->buffers;
  }
  std::free(buffer);
}

}  // namespace

CuptiSource::CuptiSource() = default;

CuptiSource::~CuptiSource() {
  if (started_) (void)stop();
}

Status CuptiSource::start(const CuptiOptions& options, ActivitySink& sink) {
  if (started_) return Error{"CUPTI tracing is already started"};
  if (!cupti::cuda_driver_present())
    return Error{"no CUDA driver on this machine (libcuda.so.1 not found): GPU activity cannot be traced"};
  register_current_thread();
  auto session = std::make_shared<Session>();
  session->sink = &sink;
  session->dispatcher = std::make_unique<cupti::ActivityDispatcher>(sink, cupti::cached_api_namer());
  if (options.describe_devices)
    for (DeviceInfo& device : cuda_devices()) session->dispatcher->add_device(DeviceRecord{std::move(device)});
  {
    Globals& g = globals();
    std::lock_guard lock(g.mutex);
    if (g.session) return Error{"CUPTI tracing is already started by another CuptiSource in this process"};
    g.session = session;
    // aligned_alloc needs a multiple of the alignment.
    g.buffer_bytes = (std::max(options.buffer_bytes, kMinBufferBytes) + 7) / 8 * 8;
  }
  if (options.inject_nvtx) sink.on_note(cupti::inject_nvtx());
  Status enabled = cupti::enable_tracing(options, buffer_requested, buffer_completed, sink);
  if (!enabled) {
    cupti::disable_kinds();
    cupti::unsubscribe();
    std::lock_guard lock(globals().mutex);
    globals().session.reset();
    return enabled.error();
  }
  started_ = true;
  return ok_status();
}

Status CuptiSource::stop() {
  if (!started_) return ok_status();
  started_ = false;
  // No lock of ours is held here: the flush calls buffer_completed on this thread. Flush, disable, then flush
  // again for whatever was recorded in between; unsubscribe last, once nothing more can arrive.
  Status flushed = cupti::flush_all();
  cupti::disable_kinds();
  if (Status again = cupti::flush_all(); flushed && !again) flushed = again;
  cupti::unsubscribe();
  std::shared_ptr<Session> session;
  {
    std::lock_guard lock(globals().mutex);
    session = std::move(globals().session);
  }
  session->dispatcher->finish();
  last_delivered_ = session->dispatcher->delivered();
  last_dropped_ = session->dropped.load();
  last_buffer_ns_ = session->buffer_ns.load();
  last_buffers_ = session->buffers.load();
  return flushed;
}

bool start_or_note(CuptiSource& source, const CuptiOptions& options, TraceRecorder& recorder) {
  Status started = source.start(options, recorder);
  if (!started)
    recorder.add_note("CUPTI unavailable: " + started.error().message +
                      "; ran untraced (host ranges and measurements only)");
  return started.ok();
}

std::size_t CuptiSource::records_delivered() const {
  if (auto session = current_session(); started_ && session) return session->dispatcher->delivered();
  return last_delivered_;
}

std::size_t CuptiSource::records_dropped() const {
  if (auto session = current_session(); started_ && session) return session->dropped.load();
  return last_dropped_;
}

std::int64_t CuptiSource::buffer_handling_ns() const {
  if (auto session = current_session(); started_ && session) return session->buffer_ns.load();
  return last_buffer_ns_;
}

std::int64_t CuptiSource::buffers_handled() const {
  if (auto session = current_session(); started_ && session) return session->buffers.load();
  return last_buffers_;
}

}  // namespace gtv::collect
