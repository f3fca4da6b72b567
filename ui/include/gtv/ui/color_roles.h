#pragma once
// Every fixed colour of the timeline, one per meaning ("role"), in one table: event kinds, the GPUs-busy strip, idle
// causes, the critical path's stretches, communication, measurement brackets. Places that show the same meaning
// share its role (a copy in a lane and on the critical path; "host blocked" under the lanes and a host Sync call), and
// two roles never look alike: every pair of roles, and every role against every kernel colour (kKernelPalette), is at
// least kMinRoleDifference apart in CIEDE2000, in the light and the dark theme (tests/ui/palette_test.cpp). Each
// colour is the one nearest its customary colour (copies red, kernels steel blue) that keeps that distance.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gtv::ui {

using Rgb = std::uint32_t;

enum class ColorRole : std::uint8_t {
  Kernel,              // GPU computation (also kernels with no owner, "kernel" on the critical path)
  Copy,                // memcpy
  Memset,              // memset
  RuntimeCall,         // CUDA runtime API call (and other host API calls on the critical path)
  DriverCall,          // CUDA driver API call
  HostWaiting,         // the host in a waiting call: Sync events, the idle cause "host blocked"
  CpuOp,               // framework operator on the host
  Annotation,          // user annotation (record_function, NVTX)
  TracingOverhead,     // the profiler's own cost
  Instant,             // instant events
  OtherEvent,          // events of no known kind
  BusyOne,             // GPUs-busy strip: one busy
  BusyMany,            // GPUs-busy strip: two or more busy
  HostLaunching,       // the host launching work (idle cause, critical path)
  HostBusy,            // the host's own work between calls
  OtherGpuWork,        // another GPU's or stream's work holding this one
  DependencyWait,      // waiting on a dependency (event wait)
  WarmupCause,         // first-use work as an idle cause and on the critical path (lazy loading)
  PeerRank,            // waiting for a peer rank; a collective's transfer
  UnknownCause,        // idle for no cause found
  QueuedGap,           // a stream's gap between finished and queued work
  NcclOverlap,         // NCCL beside computation
  NcclExposed,         // NCCL with no computation beside it
  LaunchLatency,       // from a launch to the GPU starting its work
  SyncWake,            // from the waited-for work's end to the waiting call's return
  NotRecorded,         // before the first recorded event
  Stopwatch,           // a measurement bracket: host stopwatch without a sync
  StopwatchSync,       // host stopwatch after a sync
  CudaEvents,          // CUDA events
  Truth,               // truth, and measurements of other methods
  MixedOwners,         // a merged block of several owners' work
  CollectiveTransfer,  // a rank's part of a collective after the last rank arrived (the collective row)
  LastArrival,         // the arrival the other ranks waited for (the collective row's tick and line)
};
inline constexpr std::size_t kColorRoleCount = 33;

struct RoleColor {
  ColorRole role;
  std::string_view name;
  Rgb rgb;
};

inline constexpr std::array<RoleColor, kColorRoleCount> kRoleColors = {{
    {ColorRole::Kernel, "kernel", 0x4e79a7},
    {ColorRole::Copy, "copy", 0xc0392b},
    {ColorRole::Memset, "memset", 0xc26c1c},
    {ColorRole::RuntimeCall, "runtime call", 0x7d90d4},
    {ColorRole::DriverCall, "driver call", 0xa89bc9},
    {ColorRole::HostWaiting, "host waiting", 0xf74d25},
    {ColorRole::CpuOp, "cpu op", 0x97ab7e},
    {ColorRole::Annotation, "annotation", 0xc3b482},
    {ColorRole::TracingOverhead, "tracing overhead", 0xb0988c},
    {ColorRole::Instant, "instant", 0x2d392d},
    {ColorRole::OtherEvent, "other event", 0xc2aab6},
    {ColorRole::BusyOne, "one GPU busy", 0xbcc4e4},
    {ColorRole::BusyMany, "two or more GPUs busy", 0x264478},
    {ColorRole::HostLaunching, "host launching", 0xe39373},
    {ColorRole::HostBusy, "host busy", 0xb6bd1c},
    {ColorRole::OtherGpuWork, "other GPU work", 0x555555},
    {ColorRole::DependencyWait, "dependency wait", 0x9467bd},
    {ColorRole::WarmupCause, "warm-up", 0x8c564b},
    {ColorRole::PeerRank, "peer rank", 0x05bedb},
    {ColorRole::UnknownCause, "unknown", 0xafafa3},
    {ColorRole::QueuedGap, "queued gap", 0xe971ce},
    {ColorRole::NcclOverlap, "NCCL beside computation", 0x2a7f62},
    {ColorRole::NcclExposed, "NCCL exposed", 0x8b1a1a},
    {ColorRole::LaunchLatency, "launch latency", 0x53e3e3},
    {ColorRole::SyncWake, "sync wake", 0xfac4b8},
    {ColorRole::NotRecorded, "not recorded", 0xd1ddcb},
    {ColorRole::Stopwatch, "stopwatch", 0xd01b4c},
    {ColorRole::StopwatchSync, "stopwatch + sync", 0x338313},
    {ColorRole::CudaEvents, "cuda events", 0x135f84},
    {ColorRole::Truth, "truth", 0x6e7468},
    {ColorRole::MixedOwners, "several owners", 0x8c8c8c},
    {ColorRole::CollectiveTransfer, "collective transfer", 0x372aab},
    {ColorRole::LastArrival, "last arrival", 0xb2186b},
}};

[[nodiscard]] constexpr Rgb role_color(ColorRole role) { return kRoleColors[static_cast<std::size_t>(role)].rgb; }

// Two colours closer than this (CIEDE2000) are too alike to tell apart in a legend at a glance.
inline constexpr double kMinRoleDifference = 12;

}  // namespace gtv::ui
