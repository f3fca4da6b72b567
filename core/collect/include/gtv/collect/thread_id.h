#pragma once
// Process and thread ids as the OS knows them (getpid, gettid): trace host lanes are keyed by these.
#include <cstdint>
#include <string>

namespace gtv::collect {

[[nodiscard]] std::int64_t current_pid();
[[nodiscard]] std::int64_t current_tid();

// CUPTI reports the thread of an API call as a 32-bit id that may be the OS tid or a truncated pthread id,
// depending on the platform and version. Threads that use gtv (HostRecorder, CuptiSource::start) register
// here, so either form maps back to the OS tid and host events and API calls of one thread share a lane.
void register_current_thread();
// The OS tid for a CUPTI thread id: the id itself if a registered thread has that OS tid, the OS tid of the
// registered thread whose pthread id has these low 32 bits, else the id unchanged.
[[nodiscard]] std::int64_t os_tid_from_cupti(std::uint32_t cupti_thread_id);

// The OS name of the calling thread (pthread_getname_np), empty if unset.
[[nodiscard]] std::string current_thread_name();

}  // namespace gtv::collect
