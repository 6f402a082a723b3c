// shwa/perf/cuda_timeline.cpp — a Kokkos profiling tool for CUDA builds: when each kernel and each
// copy ran on the GPU, on which stream, and when the host was inside each profiling region (the
// halo exchange's phases: comm/mpi_exchanger.hpp), from CUPTI's activity records.
//
//   KOKKOS_PROFILE_LIBRARY=build/cuda/perf/libshwa_cuda_timeline.so SHWA_TIMELINE=/tmp/tl
//   mpirun -np 2 -x KOKKOS_PROFILE_LIBRARY -x SHWA_TIMELINE build/cuda/perf/shwa_scale ...
//
// writes /tmp/tl.rank<R>.csv (R: the MPI rank from the launcher's environment, else 0), one line an
// event: kind (kernel, copy, region), name (a kernel: its Kokkos label; a copy: its direction, HtoD
// or DtoH), stream (-1 for regions), start and end in ns on CUPTI's clock (host and device events
// share it), launch (CUPTI's correlation id, which grows in the order the host issued the work; 0
// for regions). perf/timeline.py reads it. The records are buffered and written at Kokkos' finalize.
#include <cupti.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct Event {
  const char* kind;
  std::string name;
  long stream;
  std::uint64_t start, end;
  std::uint32_t correlation;  // kernels and copies: CUPTI's id, resolved to a Kokkos label at the end
};

struct State {
  std::mutex mutex;
  std::vector<Event> events;
  std::unordered_map<std::uint32_t, std::uint64_t> external;  // CUPTI correlation id -> label id
  std::vector<std::string> labels;                             // label id -> Kokkos label
  std::unordered_map<std::string, std::uint64_t> label_ids;    // Kokkos label -> label id
  std::vector<std::pair<std::string, std::uint64_t>> regions;  // open regions: name, start
  bool ok = true;
  size_t dropped = 0;  // records CUPTI had no room for
};

State& state() {
  static State s;
  return s;
}

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  std::fprintf(stderr, "shwa_cuda_timeline: %s failed: %s\n", what, msg ? msg : "?");
  state().ok = false;
}

constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

const char* copy_kind(std::uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    default: return "other";
  }
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  State& s = state();
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) s.dropped += dropped;
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
      switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
          const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
          s.events.push_back({"kernel", k->name ? k->name : "?", long(k->streamId), k->start, k->end,
                              k->correlationId});
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
          s.events.push_back({"copy", copy_kind(m->copyKind), long(m->streamId), m->start, m->end,
                              m->correlationId});
          break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
          const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(rec);
          s.external[e->correlationId] = e->externalId;
          break;
        }
        default: break;
      }
    }
  }
  std::free(buffer);
}

std::uint64_t now() {
  std::uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

/// Kernels and copies launched between push and pop carry the label's id as their external id.
void push_label(const std::string& label) {
  State& s = state();
  std::uint64_t id;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.label_ids.find(label);
    if (it != s.label_ids.end()) {
      id = it->second;
    } else {
      id = s.labels.size();
      s.labels.push_back(label);
      s.label_ids.emplace(label, id);
    }
  }
  cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

void pop_label() {
  std::uint64_t id = 0;
  cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id);
}

std::string rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"})
    if (const char* r = std::getenv(v)) return r;
  return "0";
}

}  // namespace

extern "C" {

struct Kokkos_Tools_ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};

/// Kokkos otherwise waits for the device before and after each kernel hook (so that host-side
/// tools time kernels), which would serialise the streams this tool is there to show.
void kokkosp_request_tool_settings(uint32_t, Kokkos_Tools_ToolSettings* settings) {
  settings->requires_global_fencing = false;
}

void kokkosp_init_library(int, uint64_t, uint32_t, void*) {
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable kernels");
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "enable copies");
  // External correlation records (kernel -> Kokkos label) come with the runtime API's records.
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "enable runtime API");
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), "enable correlation");
}

void kokkosp_finalize_library() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const char* prefix = std::getenv("SHWA_TIMELINE");
  const std::string path = std::string(prefix ? prefix : "timeline") + ".rank" + rank() + ".csv";
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "shwa_cuda_timeline: cannot write %s\n", path.c_str());
    return;
  }
  std::fprintf(f, "kind,name,stream,start_ns,end_ns,launch\n");
  for (const Event& e : s.events) {
    if (e.start == 0 || e.end < e.start) continue;  // a record the forced flush left incomplete
    std::string name = e.name;
    if (e.correlation && e.kind[0] == 'k') {
      const auto it = s.external.find(e.correlation);
      if (it != s.external.end() && it->second < s.labels.size()) name = s.labels[it->second];
    }
    for (char& c : name)
      if (c == ',') c = ';';
    std::fprintf(f, "%s,%s,%ld,%" PRIu64 ",%" PRIu64 ",%" PRIu32 "\n", e.kind, name.c_str(), e.stream, e.start,
                 e.end, e.correlation);
  }
  std::fclose(f);
  std::fprintf(stderr, "shwa_cuda_timeline: %zu events in %s%s\n", s.events.size(), path.c_str(),
               s.ok && s.dropped == 0 ? "" : " (INCOMPLETE: CUPTI reported errors or dropped records)");
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
}

void kokkosp_begin_parallel_for(const char* name, uint32_t, uint64_t*) { push_label(name); }
void kokkosp_end_parallel_for(uint64_t) { pop_label(); }
void kokkosp_begin_parallel_reduce(const char* name, uint32_t, uint64_t*) { push_label(name); }
void kokkosp_end_parallel_reduce(uint64_t) { pop_label(); }
void kokkosp_begin_parallel_scan(const char* name, uint32_t, uint64_t*) { push_label(name); }
void kokkosp_end_parallel_scan(uint64_t) { pop_label(); }
// No deep_copy hooks: Kokkos 3.4 reads a device View's label for them with a blocking copy on the
// default stream, which would wait for every stream. Copies are named by their direction.

void kokkosp_push_profile_region(const char* name) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.regions.emplace_back(name, now());
}
void kokkosp_pop_profile_region() {
  State& s = state();
  const std::uint64_t t = now();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (s.regions.empty()) return;
  s.events.push_back({"region", s.regions.back().first, -1, s.regions.back().second, t, 0});
  s.regions.pop_back();
}

}  // extern "C"
