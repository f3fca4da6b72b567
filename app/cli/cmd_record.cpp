// gtv-cli record [-o OUT] [options] -- CMD ARGS...: runs CMD with gtv's CUPTI recorder injected into every process
// of its tree that initialises CUDA (CUDA_INJECTION64_PATH = libgtv-inject.so), then merges the files those
// processes wrote into OUT. gtv-cli itself never links CUPTI: it only loads the injection library to check it and
// to ask where its libcupti is (NVTX_INJECTION64_PATH, so NVTX ranges reach CUPTI).
#include <dlfcn.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <ostream>

#include "command.h"
#include "gtv/base/install_layout.h"
#include "gtv/collect/record_settings.h"
#include "gtv/io/trace_file.h"
#include "record_child.h"
#include "record_files.h"

namespace gtv::cli {
namespace {

namespace fs = std::filesystem;
using collect::RecordSettings;

constexpr const char* kDefaultOutput = "gtv-record.json.gz";

struct Injection {
  fs::path library;
  std::string cupti_path;  // empty when the library could not say
};

// The injection library, loaded once to check that it loads here (its libcupti found) and to ask for that libcupti.
Expected<Injection> find_injection() {
  const fs::path library = injection_library();
  std::error_code ec;
  if (!fs::is_regular_file(library, ec))
    return Error{"no injection library " + library.string() +
                 ": this gtv was built or installed without CUPTI (build with the CUDA toolkit, -DGTV_WITH_CUPTI=ON) "
                 "or set GTV_INJECT to a libgtv-inject.so"};
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return Error{std::string("the injection library does not load: ") + ::dlerror()};
  Injection found{fs::absolute(library, ec), {}};
  using PathFn = const char* (*)();
  if (auto fn = reinterpret_cast<PathFn>(::dlsym(handle, "gtv_injection_cupti_path")); fn != nullptr)
    if (const char* path = fn(); path != nullptr) found.cupti_path = path;
  const bool initializer = ::dlsym(handle, "InitializeInjection") != nullptr;
  ::dlclose(handle);
  if (!initializer) return Error{library.string() + " exports no InitializeInjection: not a CUDA injection library"};
  return found;
}

Expected<RecordSettings> settings_from(const ParsedArgs& args) {
  RecordSettings s;
  if (auto range = args.value("--capture-range")) {
    if (Status parsed = collect::parse_capture_range(*range, s); !parsed) return parsed.error();
    if (args.has("--delay") || args.has("--duration"))
      return Error{"--delay and --duration set a capture range of their own: give them or --capture-range"};
  }
  for (auto [option, field] : {std::pair{"--delay", &s.delay_ns}, std::pair{"--duration", &s.duration_ns}}) {
    if (auto text = args.value(option)) {
      Expected<TimeNs> ns = collect::parse_seconds(option, *text);
      if (!ns) return ns.error();
      *field = *ns;
      s.capture = collect::CaptureMode::Time;
    }
  }
  if (auto text = args.value("--max-events")) {
    Expected<long long> n = parse_count("--max-events", *text);
    if (!n) return n.error();
    if (*n < 1) return Error{"--max-events wants at least 1"};
    s.max_events = *n;
  }
  return s;
}

std::string ms(TimeNs ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(ns) / 1e6);
  return text;
}

// One line per process: what recording cost it, as its recorder measured.
void print_costs(const Trace& trace, Io io) {
  if (trace.metadata().recorder_costs.empty()) return;
  io.err << "recording cost, as measured by the recorder:\n";
  for (const RecorderCost& c : trace.metadata().recorder_costs) {
    char share[32] = "-";
    if (c.traced_ns > 0)
      std::snprintf(share, sizeof share, "%.2f%%",
                    100.0 * static_cast<double>(c.buffer_handling_ns) / static_cast<double>(c.traced_ns));
    io.err << "  pid " << c.pid << ": start-up " << ms(c.startup_ns) << ", buffer handling " << ms(c.buffer_handling_ns)
           << " on CUPTI's thread in " << ms(c.traced_ns) << " traced (" << share << " of that window), exit flush "
           << ms(c.exit_ns) << "; " << c.records_kept << " of " << c.records << " records kept\n";
  }
}

void report_untraced(const RecordFolder& folder, Io io) {
  for (const std::string& line : folder.refusals) io.err << line << "\n";
  if (folder.forked_untraced.empty()) return;
  const std::size_t n = folder.forked_untraced.size();
  io.err << "gtv-cli record: " << n << (n == 1 ? " process was" : " processes were")
         << " forked from a traced process after it had initialised CUDA (pid";
  for (const long pid : folder.forked_untraced) io.err << " " << pid;
  io.err << "): they are not traced; a forked process cannot use CUDA until it runs a new program, and programs it "
            "runs that use CUDA are traced on their own\n";
}

int run_record(const ParsedArgs& args, Io io) {
  const CommandSpec& spec = record_command().spec;
  Expected<RecordSettings> settings = settings_from(args);
  if (!settings) return usage_error(spec, settings.error().message, io);
  const std::string out_path = args.value("--output").value_or(kDefaultOutput);
  if (out_path.empty()) return usage_error(spec, "-o needs a file name", io);
  if (const char* other = std::getenv("CUDA_INJECTION64_PATH"); other != nullptr && *other != '\0')
    return input_error(std::string("CUDA_INJECTION64_PATH is already set (") + other +
                           "): another tool injects into CUDA here, and CUDA loads only one injection library",
                       io);
  Expected<Injection> injection = find_injection();
  if (!injection) return input_error("cannot record: " + injection.error().message, io);

  std::string dir_template = (fs::temp_directory_path() / "gtv-record-XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr)
    return input_error("cannot create a folder for the per-process files in " + fs::temp_directory_path().string(), io);
  const fs::path dir = dir_template;
  settings->dir = dir.string();
  settings->start_unix_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::vector<std::pair<std::string, std::string>> add = collect::record_environment(*settings);
  add.emplace_back("CUDA_INJECTION64_PATH", injection->library.string());
  const char* nvtx = std::getenv("NVTX_INJECTION64_PATH");
  if (nvtx == nullptr && !injection->cupti_path.empty())
    add.emplace_back("NVTX_INJECTION64_PATH", injection->cupti_path);
  else if (nvtx != nullptr)
    io.err << "gtv-cli record: NVTX_INJECTION64_PATH is already set (" << nvtx
           << "): NVTX ranges reach gtv only if it names a libcupti\n";

  io.out.flush();
  io.err.flush();
  std::cout.flush();
  std::cerr.flush();
  Expected<ChildExit> child = run_child(args.positionals, child_environment({}, add));
  if (!child) {
    fs::remove_all(dir);
    io.err << "gtv-cli record: " << child.error().message << "\n";
    return 127;  // as a shell reports a program it cannot start
  }
  const RecordFolder folder = scan_record_folder(dir);
  report_untraced(folder, io);
  const std::string what = args.positionals.front();
  if (folder.traces.empty()) {
    io.err << "gtv-cli record: no trace was written: no process of " << what << " initialised CUDA"
           << (folder.refusals.empty() ? "" : " and could be traced")
           << ", or those that did ended by a signal or _exit; " << out_path << " was not written (" << what
           << " ended with " << child->description << ")\n";
    fs::remove_all(dir);
    return child->exit_code;
  }
  std::optional<Trace> trace = merge_recorded(folder.traces, io);
  Status written = trace ? io::write_trace(*trace, out_path) : Status(Error{"the per-process traces did not merge"});
  if (!written) {
    io.err << "gtv-cli record: " << written.error().message << "; the per-process files are kept in " << dir.string()
           << "\n";
    return child->exit_code != 0 ? child->exit_code : kExitBadInput;
  }
  fs::remove_all(dir);
  io.err << "wrote " << out_path << " (" << folder.traces.size()
         << (folder.traces.size() == 1 ? " process, " : " processes, ") << trace->event_count() << " events";
  if (folder.traces.size() > 1) io.err << "; clock: " << trace->metadata().clock.method;
  io.err << "; " << what << " ended with " << child->description << ")\n";
  print_costs(*trace, io);
  return child->exit_code;
}

}  // namespace

const Command& record_command() {
  static const Command command{
      CommandSpec{
          .name = "record",
          .summary = "run any program with gtv's CUPTI recorder injected and save its GPU timeline",
          .positionals = "-- CMD [ARGS...]",
          .min_positionals = 1,
          .max_positionals = 65536,
          .options = {value_option("--output", "OUT", "the trace to write (default gtv-record.json.gz)", 'o'),
                      value_option("--capture-range", "RANGE",
                                   "keep only what starts between cudaProfilerStart and cudaProfilerStop "
                                   "(cudaProfilerApi) or inside NVTX ranges named NAME (nvtx:NAME)"),
                      value_option("--delay", "S", "keep only what starts S seconds or more after CMD started"),
                      value_option("--duration", "S", "keep only what starts within S seconds of the delay's end"),
                      value_option("--max-events", "N",
                                   "records kept per process at most (default 5000000); further records are "
                                   "counted and left out, with a note")},
          .details =
              "CMD runs with CUDA_INJECTION64_PATH naming libgtv-inject.so and NVTX_INJECTION64_PATH naming its "
              "libcupti: CUDA loads the recorder in every process of CMD's tree that initialises CUDA (children, "
              "torchrun ranks, worker processes), each writes its own trace at exit, and gtv-cli merges them into "
              "OUT: the ranks of a launcher's job (RANK and WORLD_SIZE in their environment) as `merge` merges rank "
              "files, other processes on this host's clock. Recorded: kernels with launch configurations, copies, "
              "memsets, the API calls that launched them, synchronizations and their dependencies, memory, NVTX "
              "ranges on their threads' lanes. The capture range is applied to what CUPTI records (the tracing cost "
              "outside the range remains). The exit code is CMD's (128 + N when signal N ended it; 127 when it could "
              "not start); exit code 1 or 2 before CMD runs: bad options, or no injection library. Processes that "
              "never initialise CUDA write nothing; a process ended by a signal or _exit writes nothing either. "
              "Only one CUPTI client can run in a process: torch.profiler, Nsight Systems and compute-sanitizer do "
              "not work beside it (its processes then say why they are not traced).",
      },
      &run_record};
  return command;
}

}  // namespace gtv::cli
