#pragma once
// The CUPTI activity record versions gtv reads, named once. CUPTI numbers each struct's layout
// (CUpti_ActivityKernel10, ...); these are the ones CUDA 13's CUPTI emits (cupti_activity.h; the older layouts live
// in cupti_activity_deprecated.h and are never produced by it). A CUDA release with new layouts changes this file
// only: every conversion and the dispatcher use the aliases.
#include <cupti.h>

namespace gtv::collect::cupti {

using KernelActivity = CUpti_ActivityKernel10;  // with graphId and graphNodeId (kernels of a graph launch)
using MemcpyActivity = CUpti_ActivityMemcpy6;
using PeerMemcpyActivity = CUpti_ActivityMemcpyPtoP4;
using MemsetActivity = CUpti_ActivityMemset4;
using SyncActivity = CUpti_ActivitySynchronization2;
using CudaEventActivity = CUpti_ActivityCudaEvent2;
using OverheadActivity = CUpti_ActivityOverhead3;
using DeviceActivity = CUpti_ActivityDevice5;
using ContextActivity = CUpti_ActivityContext3;
using MemoryActivity = CUpti_ActivityMemory4;
using MarkerActivity = CUpti_ActivityMarker2;
using ApiActivity = CUpti_ActivityAPI;

}  // namespace gtv::collect::cupti
