#pragma once
// The names of the memory counter series gtv makes (CounterSeries::name): the recorder, the Kineto reader, the
// analyses and the tests spell them from here. The unit is part of the name, so a counter row's label says it.
// GPU series have the device index as pid (as Kineto writes a GPU's counters); host series the process id.
#include <string_view>

namespace gtv::counters {

// CUPTI's memory records: bytes allocated minus bytes freed since the recording started (memory allocated before
// it is not seen, so a series may go below zero).
inline constexpr std::string_view kDeviceMemorySinceStart = "device memory allocated since start (bytes)";
inline constexpr std::string_view kPinnedMemorySinceStart = "pinned host memory allocated since start (bytes)";

// PyTorch's caching allocator: bytes its tensors hold, and bytes it holds from the driver (allocated plus cached).
inline constexpr std::string_view kTorchAllocated = "allocated by PyTorch (bytes)";
inline constexpr std::string_view kTorchReserved = "reserved by PyTorch (bytes)";

}  // namespace gtv::counters
