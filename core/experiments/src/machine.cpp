#include "machine.h"

#include <unistd.h>

#include <fstream>
#include <string>

#include "gtv/config.h"
#if GTV_WITH_CUPTI
#include "gtv/collect/cupti_source.h"
#endif

namespace gtv::exp {
namespace {

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof(buffer) - 1) != 0) return "unknown";
  return buffer;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return {};
}

}  // namespace

void record_machine(ScenarioContext& ctx) {
  ctx.host.set_machine("host", host_name());
  if (auto cpu = cpu_model(); !cpu.empty()) ctx.host.set_machine("cpu", cpu);
  ctx.host.set_machine("libtorch", ctx.engine.torch_version());
  ctx.host.set_machine("cuda_available", ctx.on_gpu() ? "true" : "false");
  ctx.host.set_machine("gtv_cupti", GTV_WITH_CUPTI ? "true" : "false");
#if GTV_WITH_CUPTI
  if (!ctx.on_gpu()) return;
  const auto info = collect::cuda_machine_info();
  for (const auto& [key, value] : info) ctx.host.set_machine(key, value);
  for (int device : ctx.devices_in_use()) {
    collect::DeviceRecord record;
    record.info.index = device;
    if (auto it = info.find("gpu" + std::to_string(device)); it != info.end()) record.info.name = it->second;
    ctx.host.recorder().on_device(record);
  }
#endif
}

#if GTV_WITH_CUPTI
struct GpuTracing::Impl {
  collect::CuptiSource cupti;
};
#else
struct GpuTracing::Impl {};
#endif

GpuTracing::GpuTracing(ScenarioContext& ctx) : ctx_(ctx) {
  if (!ctx.on_gpu()) return;
#if GTV_WITH_CUPTI
  if (!ctx.config.cupti) {
    ctx.host.add_note("CUPTI off by request: GPU activity not traced");
    return;
  }
  impl_ = std::make_unique<Impl>();
  collect::CuptiOptions options;
  options.all_api = ctx.config.all_api;
  if (Status s = impl_->cupti.start(options, ctx.host.recorder()); !s) {
    ctx.host.add_note("CUPTI unavailable: " + s.error().message + "; the run went on untraced");
    ctx.progress("CUPTI unavailable (" + s.error().message + "): running untraced");
    impl_.reset();
  }
#else
  ctx.host.add_note("built without CUPTI: GPU activity not traced");
#endif
}

GpuTracing::~GpuTracing() { stop(); }

void GpuTracing::stop() {
#if GTV_WITH_CUPTI
  if (!impl_) return;
  if (Status s = impl_->cupti.stop(); !s) ctx_.host.add_note("CUPTI stop: " + s.error().message);
  ctx_.host.add_note("CUPTI: " + std::to_string(impl_->cupti.records_delivered()) + " records delivered, " +
                     std::to_string(impl_->cupti.records_dropped()) + " dropped");
  impl_.reset();
#endif
}

}  // namespace gtv::exp
