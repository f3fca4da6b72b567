#include "injection.h"

#include <cupti.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>

#include "gtv/collect/capture_sink.h"
#include "gtv/collect/cupti_source.h"
#include "gtv/collect/thread_id.h"
#include "gtv/collect/trace_recorder.h"
#include "gtv/io/trace_file.h"

namespace gtv::collect::injection {
namespace {

using SteadyClock = std::chrono::steady_clock;

TimeNs ns_since(SteadyClock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now() - t).count();
}

UnixNs unix_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One process's recording. Built once and never destroyed: the exit handler and CUPTI's threads use it while the
// process ends, after static destructors may have run.
struct Recording {
  Recording(RecordSettings s, UnixNs origin) : settings(std::move(s)), recorder(origin) {}
  RecordSettings settings;
  TraceRecorder recorder;
  std::unique_ptr<CaptureGate> gate;
  std::unique_ptr<NvtxRangeWatch> nvtx;
  std::unique_ptr<CaptureSink> sink;
  CuptiSource cupti;
  std::int64_t pid = 0;
  TimeNs startup_ns = 0;
  SteadyClock::time_point traced_from;
};

struct State {
  std::mutex mutex;
  Recording* recording = nullptr;  // set while this process records
  bool finished = false;
  char forked_prefix[4096] = {};  // "<dir>/gtv-", for the fork handler (no allocation there)
  long parent_pid = 0;
};

State& state() {
  static State* instance = new State;
  return *instance;
}

std::string read_proc(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text)
    if (c == '\0') c = ' ';
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  return text;
}

std::string process_label(std::int64_t pid) {
  const std::string comm = read_proc("/proc/self/comm");
  return "pid " + std::to_string(pid) + (comm.empty() ? std::string() : " (" + comm + ")");
}

// Writes text to dir/name through a temporary name, so a reader of the folder never sees half a file.
Status write_file(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string final_path = dir + "/" + name;
  const std::string temp_path = dir + "/." + name + ".part";
  {
    std::ofstream out(temp_path, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temp_path.c_str());
      return Error{"cannot write " + temp_path};
    }
  }
  if (std::rename(temp_path.c_str(), final_path.c_str()) != 0) {
    std::remove(temp_path.c_str());
    return Error{"cannot rename " + temp_path + " to " + final_path};
  }
  return ok_status();
}

void refuse(const std::string& dir, std::int64_t pid, const std::string& why) {
  const std::string line = "gtv-cli record: " + process_label(pid) + " is not traced: " + why;
  std::cerr << line << "\n" << std::flush;
  if (!dir.empty()) (void)write_file(dir, refused_file_name(static_cast<long>(pid)), line + "\n");
}

// In the child of a fork after CUDA was initialised: leave a mark for gtv-cli record. Only system calls and a
// stack buffer: the child of a multi-threaded process must not take locks other threads may have held.
void on_fork_child() {
  State& s = state();
  if (s.forked_prefix[0] == '\0') return;
  char path[4200];
  const int n = std::snprintf(path, sizeof path, "%s%ld.forked", s.forked_prefix, static_cast<long>(::getpid()));
  if (n <= 0 || static_cast<std::size_t>(n) >= sizeof path) return;
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char text[32];
  const int m = std::snprintf(text, sizeof text, "%ld\n", s.parent_pid);
  if (m > 0) (void)!::write(fd, text, static_cast<std::size_t>(m));
  ::close(fd);
}

void finish_at_exit() { finish(); }

// The gate, and the watch that moves it while the program runs, for the settings' capture range.
void set_up_capture(Recording& r, CuptiOptions& options) {
  const RecordSettings& s = r.settings;
  switch (s.capture) {
    case CaptureMode::Whole:
      r.gate = std::make_unique<CaptureGate>(CaptureGate::always_open());
      break;
    case CaptureMode::Time: {
      const UnixNs start = saturating_add(s.start_unix_ns, s.delay_ns);
      r.gate = std::make_unique<CaptureGate>(
          CaptureGate::window(start, s.duration_ns > 0 ? saturating_add(start, s.duration_ns) : start));
      break;
    }
    case CaptureMode::ProfilerApi:
      r.gate = std::make_unique<CaptureGate>();
      options.capture = CaptureWatch{r.gate.get(), true, nullptr};
      break;
    case CaptureMode::Nvtx:
      r.gate = std::make_unique<CaptureGate>();
      r.nvtx = std::make_unique<NvtxRangeWatch>(s.nvtx_name);
      options.capture = CaptureWatch{r.gate.get(), false, r.nvtx.get()};
      break;
  }
  r.sink = std::make_unique<CaptureSink>(r.recorder, *r.gate, s.max_events);
}

void describe_process(Recording& r, const EnvLookup& lookup) {
  TraceRecorder& rec = r.recorder;
  const std::string comm = read_proc("/proc/self/comm");
  if (!comm.empty()) rec.set_process_name(r.pid, comm);
  std::string command = read_proc("/proc/self/cmdline");
  if (command.size() > 500) command = command.substr(0, 500) + "...";
  rec.set_scenario("gtv-cli record: " + command);
  rec.set_config("capture", describe_capture(r.settings));
  rec.set_config("max_events", std::to_string(r.settings.max_events));
  const LauncherRank rank = launcher_rank(lookup);
  if (rank.distributed.rank >= 0) rec.set_distributed(rank.distributed);
  if (rank.local_rank >= 0) rec.set_config("local_rank", std::to_string(rank.local_rank));
}

// The machine and its GPUs, asked of the driver at exit: InitializeInjection runs inside the program's cuInit,
// where a driver call (these call cuInit) must not be made.
void describe_machine(Recording& r) {
  for (auto& [key, value] : cuda_machine_info()) r.recorder.set_machine(key, value);
  for (DeviceInfo& device : cuda_devices()) r.recorder.on_device(DeviceRecord{std::move(device)});
}

}  // namespace

std::string trace_file_name(long pid) { return "gtv-" + std::to_string(pid) + ".json"; }
std::string refused_file_name(long pid) { return "gtv-" + std::to_string(pid) + ".refused"; }
std::string forked_file_name(long pid) { return "gtv-" + std::to_string(pid) + ".forked"; }

bool initialize(const EnvLookup& lookup) {
  const auto began = SteadyClock::now();
  const UnixNs origin = unix_now();
  const std::int64_t pid = current_pid();
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.recording != nullptr) return true;
  Expected<RecordSettings> settings = record_settings_from(lookup);
  if (!settings) {
    const char* dir = lookup(kRecordDirEnv);
    refuse(dir != nullptr ? dir : "", pid, settings.error().message);
    return false;
  }
  auto r = std::make_unique<Recording>(std::move(*settings), origin);
  r->pid = pid;
  CuptiOptions options;
  options.inject_nvtx = lookup("NVTX_INJECTION64_PATH") == nullptr;  // gtv-cli record sets it
  options.describe_devices = false;
  set_up_capture(*r, options);
  describe_process(*r, lookup);
  if (Status started = r->cupti.start(options, *r->sink); !started) {
    refuse(r->settings.dir, pid, started.error().message);
    return false;
  }
  r->startup_ns = ns_since(began);
  r->traced_from = SteadyClock::now();
  const std::string prefix = r->settings.dir + "/gtv-";
  if (prefix.size() < sizeof s.forked_prefix) {
    prefix.copy(s.forked_prefix, prefix.size());
    s.forked_prefix[prefix.size()] = '\0';
  }
  s.parent_pid = static_cast<long>(pid);
  s.recording = r.release();  // never destroyed, see Recording
  s.finished = false;
  (void)::pthread_atfork(nullptr, nullptr, on_fork_child);
  (void)std::atexit(finish_at_exit);
  return true;
}

void finish() {
  State& s = state();
  Recording* r = nullptr;
  {
    std::lock_guard lock(s.mutex);
    if (s.recording == nullptr || s.finished) return;
    s.finished = true;
    r = s.recording;
  }
  // A child forked after CUDA was initialised holds a copy of its parent's recording, not its own: CUPTI's threads
  // did not survive the fork, so flushing here could wait forever.
  if (current_pid() != r->pid) return;
  const TimeNs traced_ns = ns_since(r->traced_from);
  const auto exit_began = SteadyClock::now();
  const Status stopped = r->cupti.stop();
  const TimeNs exit_ns = ns_since(exit_began);
  if (!stopped) r->recorder.add_note("the final CUPTI flush failed: " + stopped.error().message);
  describe_machine(*r);
  for (std::string& note : r->sink->notes(describe_capture(r->settings))) r->recorder.add_note(std::move(note));
  r->recorder.add_recorder_cost(RecorderCost{r->pid, r->startup_ns, r->cupti.buffer_handling_ns(), exit_ns, traced_ns,
                                             r->cupti.buffers_handled(), r->sink->seen(), r->sink->kept()});
  Expected<Trace> trace = r->recorder.finish();
  if (!trace) {
    refuse(r->settings.dir, r->pid, "its trace could not be built: " + trace.error().message);
    return;
  }
  // Streamed to a temporary file beside it, then renamed: a reader of the folder never sees half a trace, and the
  // program's memory never holds the whole text at once.
  const Status written = io::write_trace(*trace, r->settings.dir + "/" + trace_file_name(static_cast<long>(r->pid)));
  if (!written) std::cerr << "gtv-cli record: " << process_label(r->pid) << ": " << written.error().message << "\n";
}

}  // namespace gtv::collect::injection

extern "C" {

// Called by the CUDA driver in cuInit when CUDA_INJECTION64_PATH names this library. 1: recording, 0: refused
// (the reason is on stderr); the program runs on either way.
__attribute__((visibility("default"))) int InitializeInjection(void) {  // NOLINT(readability-identifier-naming)
  return gtv::collect::injection::initialize([](const char* name) { return std::getenv(name); }) ? 1 : 0;
}

// The path of the libcupti this library uses, for NVTX_INJECTION64_PATH (NVTX ranges reach CUPTI through it);
// nullptr when unknown. Loading this library needs no GPU, so gtv-cli record asks before starting the program.
__attribute__((visibility("default"))) const char* gtv_injection_cupti_path(void) {
  static const std::string path = [] {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) == 0 || info.dli_fname == nullptr)
      return std::string();
    return std::string(info.dli_fname);
  }();
  return path.empty() ? nullptr : path.c_str();
}

}  // extern "C"
