#include "call_names.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace gtv::causal::detail {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

std::string lower_case(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

CallWait call_wait(std::string_view n) {
  if (n == "cudaStreamSynchronize" || n == "cuStreamSynchronize" || n == "cudaDeviceSynchronize" ||
      n == "cuCtxSynchronize" || n == "cudaThreadSynchronize" || n == "cudaEventSynchronize" ||
      n == "cuEventSynchronize")
    return CallWait::Explicit;
  if (n == "cudaEventQuery" || n == "cuEventQuery" || n == "cudaStreamQuery" || n == "cuStreamQuery")
    return CallWait::NonBlocking;
  const bool copy = starts_with(n, "cudaMemcpy") || starts_with(n, "cuMemcpy");
  if (copy) return contains(n, "Async") ? CallWait::AsyncCopy : CallWait::Implicit;
  // Freeing device or page-locked memory waits for the device; the stream-ordered *Async frees do not.
  if (n == "cudaFree" || n == "cuMemFree" || n == "cuMemFree_v2" || n == "cudaFreeHost" || n == "cuMemFreeHost")
    return CallWait::Implicit;
  return CallWait::None;
}

bool is_launch_call(std::string_view n) {
  return starts_with(n, "cudaLaunch") || starts_with(n, "cuLaunch") || starts_with(n, "cudaGraphLaunch") ||
         starts_with(n, "cuGraphLaunch");
}

RecordRole record_role(std::string_view name) {
  if (starts_with(name, "cuLibraryLoad") || starts_with(name, "cuModuleLoad")) return RecordRole::LazyLoading;
  const std::string n = lower_case(name);
  if (contains(n, "command buffer full")) return RecordRole::QueueFull;
  if (starts_with(n, "cupti") || contains(n, "buffer") || contains(n, "instrumentation"))
    return RecordRole::TracingOverhead;
  if (contains(n, "lazy") || contains(n, "module load") || contains(n, "function load")) return RecordRole::LazyLoading;
  return RecordRole::None;
}

bool is_waiting_range(std::string_view name) {
  // A prefix first: this is asked of every op of every thread.
  constexpr std::string_view kPrefix = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter";
  return name.substr(0, kPrefix.size()) == kPrefix && name.find(".__next__") != std::string_view::npos;
}

}  // namespace gtv::causal::detail
