#pragma once

// The part of NVML's C ABI that shardrun calls, declared here so that the runner builds without
// nvml.h (a CPU build, a toolkit without the NVML headers). Values and layouts are NVML's own
// (nvml.h of CUDA 12/13); the fake library of the tests (tests/support/fake_nvml) includes this
// header, so both sides of the seam agree by construction.

namespace shardrun::gpu::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return success = 0;
inline constexpr Return error_not_supported = 3;
inline constexpr Return error_insufficient_size = 7;
inline constexpr Return error_timeout = 10;

using Device = struct DeviceOpaque*;      // nvmlDevice_t
using EventSet = struct EventSetOpaque*;  // nvmlEventSet_t

struct Memory {  // nvmlMemory_t
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};

struct Utilization {  // nvmlUtilization_t
    unsigned int gpu;
    unsigned int memory;
};

struct ProcessInfo {  // nvmlProcessInfo_t (the _v3 call's element; same layout as _v2's)
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};

struct EventData {  // nvmlEventData_t
    Device device;
    unsigned long long eventType;
    unsigned long long eventData;  ///< the Xid for an Xid critical-error event
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};

inline constexpr unsigned int temperature_gpu = 0;                 // NVML_TEMPERATURE_GPU
inline constexpr int memory_error_uncorrected = 1;                 // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
inline constexpr int volatile_ecc = 0;                             // NVML_VOLATILE_ECC
inline constexpr int retirement_multiple_single_bit = 0;           // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
inline constexpr int retirement_double_bit = 1;                    // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
inline constexpr unsigned long long event_xid_critical = 0x8ULL;   // nvmlEventTypeXidCriticalError
inline constexpr unsigned int device_name_size = 96;               // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned int device_uuid_size = 96;               // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned int driver_version_size = 80;            // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

// The functions, by their exported names (dlsym).
using InitFn = Return (*)();                                                   // nvmlInit_v2
using ShutdownFn = Return (*)();                                               // nvmlShutdown
using ErrorStringFn = const char* (*)(Return);                                 // nvmlErrorString
using DriverVersionFn = Return (*)(char*, unsigned int);                       // nvmlSystemGetDriverVersion
using DeviceCountFn = Return (*)(unsigned int*);                               // nvmlDeviceGetCount_v2
using HandleByIndexFn = Return (*)(unsigned int, Device*);                     // nvmlDeviceGetHandleByIndex_v2
using HandleByUuidFn = Return (*)(const char*, Device*);                       // nvmlDeviceGetHandleByUUID
using TextFn = Return (*)(Device, char*, unsigned int);                        // nvmlDeviceGetName, nvmlDeviceGetUUID
using MemoryFn = Return (*)(Device, Memory*);                                  // nvmlDeviceGetMemoryInfo
using UtilizationFn = Return (*)(Device, Utilization*);                        // nvmlDeviceGetUtilizationRates
using TemperatureFn = Return (*)(Device, unsigned int, unsigned int*);         // nvmlDeviceGetTemperature
using EnergyFn = Return (*)(Device, unsigned long long*);                      // nvmlDeviceGetTotalEnergyConsumption (mJ)
using ProcessesFn = Return (*)(Device, unsigned int*, ProcessInfo*);           // nvmlDeviceGetComputeRunningProcesses_v3
using EccFn = Return (*)(Device, int, int, unsigned long long*);               // nvmlDeviceGetTotalEccErrors
using RetiredPagesFn = Return (*)(Device, int, unsigned int*, unsigned long long*);  // nvmlDeviceGetRetiredPages
using EventSetCreateFn = Return (*)(EventSet*);                                // nvmlEventSetCreate
using RegisterEventsFn = Return (*)(Device, unsigned long long, EventSet);     // nvmlDeviceRegisterEvents
using EventSetWaitFn = Return (*)(EventSet, EventData*, unsigned int);         // nvmlEventSetWait_v2
using EventSetFreeFn = Return (*)(EventSet);                                   // nvmlEventSetFree

// GPM (GPU Performance Monitoring, Hopper and later, driver 520+): counters that say what the SMs
// did between two samples, per GPU or per MIG GPU instance. Layouts as nvml.h declares them.
using GpmSample = struct GpmSampleOpaque*;  // nvmlGpmSample_t

struct GpmSupport {  // nvmlGpmSupport_t
    unsigned int version;            ///< gpm_support_version
    unsigned int isSupportedDevice;
};

struct GpmMetric {  // nvmlGpmMetric_t
    unsigned int metricId;
    Return nvmlReturn;  ///< this metric's own status; value is valid only when success
    double value;
    struct {
        char* shortName;
        char* longName;
        char* unit;
    } metricInfo;
};

inline constexpr unsigned int gpm_metric_max = 98;  // NVML_GPM_METRIC_MAX of nvml.h version 1 of the struct

struct GpmMetricsGet {  // nvmlGpmMetricsGet_t
    unsigned int version;  ///< gpm_metrics_get_version
    unsigned int numMetrics;
    GpmSample sample1;
    GpmSample sample2;
    GpmMetric metrics[gpm_metric_max];
};

inline constexpr unsigned int gpm_support_version = 1;      // NVML_GPM_SUPPORT_VERSION
inline constexpr unsigned int gpm_metrics_get_version = 1;  // NVML_GPM_METRICS_GET_VERSION
inline constexpr unsigned int gpm_sm_util = 2;              // NVML_GPM_METRIC_SM_UTIL (SM activity)
inline constexpr unsigned int gpm_sm_occupancy = 3;         // NVML_GPM_METRIC_SM_OCCUPANCY
inline constexpr unsigned int gpm_any_tensor_util = 5;      // NVML_GPM_METRIC_ANY_TENSOR_UTIL
inline constexpr unsigned int gpm_dram_bw_util = 10;        // NVML_GPM_METRIC_DRAM_BW_UTIL

using GpmQuerySupportFn = Return (*)(Device, GpmSupport*);                     // nvmlGpmQueryDeviceSupport
using GpmSampleAllocFn = Return (*)(GpmSample*);                               // nvmlGpmSampleAlloc
using GpmSampleFreeFn = Return (*)(GpmSample);                                 // nvmlGpmSampleFree
using GpmSampleGetFn = Return (*)(Device, GpmSample);                          // nvmlGpmSampleGet
using GpmMigSampleGetFn = Return (*)(Device, unsigned int, GpmSample);         // nvmlGpmMigSampleGet (parent, GPU instance)
using GpmMetricsGetFn = Return (*)(GpmMetricsGet*);                            // nvmlGpmMetricsGet
using IsMigHandleFn = Return (*)(Device, unsigned int*);                       // nvmlDeviceIsMigDeviceHandle
using MigParentFn = Return (*)(Device, Device*);                               // nvmlDeviceGetDeviceHandleFromMigDeviceHandle
using GpuInstanceIdFn = Return (*)(Device, unsigned int*);                     // nvmlDeviceGetGpuInstanceId

// ---- The admission check's evidence (issue 38, point 1): clocks, throttling, pending repairs. ----
inline constexpr int clock_sm = 1;   // NVML_CLOCK_SM
inline constexpr int clock_mem = 2;  // NVML_CLOCK_MEM
// nvmlClocksEventReasons bits (nvml.h's nvmlClocksEventReason*, formerly ...ThrottleReason*).
inline constexpr unsigned long long clocks_event_gpu_idle = 0x1ULL;
inline constexpr unsigned long long clocks_event_applications_clocks = 0x2ULL;
inline constexpr unsigned long long clocks_event_sw_power_cap = 0x4ULL;
inline constexpr unsigned long long clocks_event_hw_slowdown = 0x8ULL;
inline constexpr unsigned long long clocks_event_sync_boost = 0x10ULL;
inline constexpr unsigned long long clocks_event_sw_thermal = 0x20ULL;
inline constexpr unsigned long long clocks_event_hw_thermal = 0x40ULL;
inline constexpr unsigned long long clocks_event_hw_power_brake = 0x80ULL;
inline constexpr unsigned long long clocks_event_display_clocks = 0x100ULL;

using ClockFn = Return (*)(Device, int, unsigned int*);                   // nvmlDeviceGetClockInfo, nvmlDeviceGetMaxClockInfo (MHz)
using ClocksEventReasonsFn = Return (*)(Device, unsigned long long*);     // nvmlDeviceGetCurrentClocksEventReasons
using PendingStatusFn = Return (*)(Device, int*);                          // nvmlDeviceGetRetiredPagesPendingStatus (nvmlEnableState_t)
using RemappedRowsFn = Return (*)(Device, unsigned int*, unsigned int*, unsigned int*, unsigned int*);  // nvmlDeviceGetRemappedRows

}  // namespace shardrun::gpu::nvml
