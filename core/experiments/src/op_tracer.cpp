#include "op_tracer.h"

#include <ATen/record_function.h>

#include <atomic>
#include <memory>

#include "gtv/base/time.h"

namespace gtv::exp {
namespace {

// RecordFunction callbacks are plain function pointers, so the recorder they feed is a process-wide pointer.
std::atomic<collect::HostRecorder*> g_host{nullptr};

struct OpStart final : at::ObserverContext {
  explicit OpStart(TimeNs start) : start_ns(start) {}
  TimeNs start_ns;
};

std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& /*fn*/) {
  if (g_host.load(std::memory_order_acquire) == nullptr) return nullptr;
  return std::make_unique<OpStart>(unix_now_ns());
}

void on_op_end(const at::RecordFunction& fn, at::ObserverContext* context) {
  const TimeNs end_ns = unix_now_ns();
  auto* host = g_host.load(std::memory_order_acquire);
  auto* start = dynamic_cast<OpStart*>(context);
  if (host == nullptr || start == nullptr) return;
  // As Kineto files them: operators are cpu_op, record_function ranges (c10d's "gloo:all_reduce" among them)
  // user_annotation.
  const EventKind kind = fn.scope() == at::RecordScope::USER_SCOPE ? EventKind::Annotation : EventKind::CpuOp;
  host->record_host_event(fn.name(), kind, start->start_ns, end_ns);
}

}  // namespace

OpTracer::OpTracer(collect::HostRecorder& host) {
  g_host.store(&host, std::memory_order_release);
  // FUNCTION: ATen operators; USER_SCOPE: record_function ranges a model may add itself.
  handle_ = at::addGlobalCallback(at::RecordFunctionCallback(&on_op_start, &on_op_end)
                                      .scopes({at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE}));
}

OpTracer::~OpTracer() {
  at::removeCallback(handle_);
  g_host.store(nullptr, std::memory_order_release);
}

}  // namespace gtv::exp
