// multi_device_sort / multi_device_sort_by_key (clprim/multi_device.hpp): host data sorted with
// every device of a list of queues, also data larger than a device's memory.
//
// Phase 1: the data is cut into equal chunks that fit a device (multi_device_policy.hpp). Every
// queue given is a worker with a few slots (device buffers for one chunk each) and two queues of
// its own in the device's context, one for uploads and one for downloads, beside the sort queue
// (the caller's, or its in-order companion). A worker takes the next chunk whenever a slot is
// free: upload on the upload queue, the radix sort on the sort queue after a barrier on the
// upload's event, the download after a marker of the sort, so the upload of one chunk, the sort of
// another and the download of a third run at once, linked by events; the host waits only for a
// slot to come back. One chunk: it is downloaded in place and that is the result.
// Phase 2 (k > 1 sorted runs, downloaded into a temporary host copy): the output is cut into
// balanced pieces at exact splits (co_rank, multi_device_merge.cpp: ties by run, then position,
// so the result is stable). Each piece is merged either on a device (its k sub-runs uploaded one
// after another and sorted there by the stable radix sort, which is a merge in (key, run,
// position) order; downloaded into place; the same pipeline as phase 1) or on the host (a k-way
// merge per piece, threads over pieces).
// Errors: phase 1 only reads the caller's data (or writes it once, sorted, with one chunk). If a
// device merge fails, the host merges every piece again from the runs before the error is
// rethrown, so the data ends sorted.
#include "multi_device_merge.hpp"
#include "multi_device_policy.hpp"

#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/multi_device.hpp>
#include <clprim/radix_sort.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace clprim {
namespace detail {

namespace {

// CLPRIM_MULTI_TRACE (measurement): one line per call on stderr with the plan and each phase's time.
struct trace_clock {
    bool on = knob_text("CLPRIM_MULTI_TRACE").has_value();
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    std::string text;
    void mark(const char* what)
    {
        if (!on) return;
        const auto now = std::chrono::steady_clock::now();
        text += std::string(" ") + what + " " + std::to_string(std::chrono::duration<double, std::milli>(now - last).count()) + " ms";
        last = now;
    }
    ~trace_clock()
    {
        if (on) std::fprintf(stderr, "clprim::multi_device_sort:%s\n", text.c_str());
    }
};

void check(cl_int err)
{
    if (err != CL_SUCCESS) throw bc::opencl_error(err);
}

// Element p * n / parts without overflow: the start of balanced part p.
std::size_t balanced_bound(std::size_t n, std::size_t p, std::size_t parts)
{
    return n / parts * p + n % parts * p / parts;
}

// A mapped CL_MEM_ALLOC_HOST_PTR buffer: host memory the device copies from and to at full speed.
struct pinned_area {
    bc::buffer buffer;
    bc::command_queue queue;
    void* ptr = nullptr;

    pinned_area(bc::command_queue& q, std::size_t bytes) : queue(q)
    {
        cl_int err = CL_SUCCESS;
        const cl_mem mem = clCreateBuffer(q.get_context().get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &err);
        check(err);
        buffer = bc::buffer(mem, false);
        ptr = clEnqueueMapBuffer(q.get(), mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err);
        check(err);
    }
    ~pinned_area()
    {
        if (ptr) {
            clEnqueueUnmapMemObject(queue.get(), buffer.get(), ptr, 0, nullptr, nullptr);
            clFinish(queue.get());
        }
    }
    pinned_area(const pinned_area&) = delete;
    pinned_area& operator=(const pinned_area&) = delete;
};

// One piece of work for the pipeline: elements of the source arrays (segments of (first, count),
// uploaded one after another), sorted together, written to the destination from element dst.
struct task {
    std::vector<std::pair<std::size_t, std::size_t>> segments;
    std::size_t dst = 0;
    std::size_t size = 0;
};

struct host_arrays {
    char* keys = nullptr;
    char* values = nullptr;
};

struct slot {
    bc::buffer keys, values;
    std::unique_ptr<pinned_area> keys_pin, values_pin;
    bc::event read; // the last download of the chunk in this slot
    const task* pending = nullptr;
};

struct worker {
    bc::command_queue* sort_queue = nullptr; // the in_order_scope's queue
    bc::command_queue upload, download;
    std::vector<slot> slots;
};

struct job {
    const multi_device_request* request;
    const multi_device_policy* policy;
    std::size_t key_bytes, value_bytes;
    host_arrays src, dst;
    const std::vector<task>* tasks;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
};

// Copies a finished chunk out of the slot's pinned area (pinned staging only).
void drain(slot& s, job& j)
{
    const task& t = *s.pending;
    s.pending = nullptr;
    s.read.wait();
    if (!s.keys_pin) return;
    parallel_copy(j.dst.keys + t.dst * j.key_bytes, s.keys_pin->ptr, t.size * j.key_bytes, j.policy->copy_threads);
    if (s.values_pin)
        parallel_copy(j.dst.values + t.dst * j.value_bytes, s.values_pin->ptr, t.size * j.value_bytes,
                      j.policy->copy_threads);
}

// Uploads task t into slot s, sorts it, downloads it: all enqueued, nothing waited for.
void launch(worker& w, slot& s, const task& t, job& j)
{
    const multi_device_request& r = *j.request;
    cl_event uploaded = nullptr;
    auto upload = [&](const bc::buffer& buffer, pinned_area* pin, const char* src, std::size_t width) {
        std::size_t at = 0;
        for (const auto& seg : t.segments) {
            const char* from = src + seg.first * width;
            const std::size_t bytes = seg.second * width;
            if (pin) {
                parallel_copy(static_cast<char*>(pin->ptr) + at, from, bytes, j.policy->copy_threads);
            } else {
                if (uploaded) clReleaseEvent(uploaded);
                uploaded = nullptr;
                check(clEnqueueWriteBuffer(w.upload.get(), buffer.get(), CL_FALSE, at, bytes, from, 0, nullptr, &uploaded));
            }
            at += bytes;
        }
        if (pin) {
            if (uploaded) clReleaseEvent(uploaded);
            uploaded = nullptr;
            check(clEnqueueWriteBuffer(w.upload.get(), buffer.get(), CL_FALSE, 0, at, pin->ptr, 0, nullptr, &uploaded));
        }
    };
    upload(s.keys, s.keys_pin.get(), j.src.keys, j.key_bytes);
    if (r.values) upload(s.values, s.values_pin.get(), j.src.values, j.value_bytes);
    const bc::event upload_done(uploaded, false); // the upload queue is in order: the last write
    check(clFlush(w.upload.get()));

    bc::command_queue& q = *w.sort_queue;
    check(clEnqueueBarrierWithWaitList(q.get(), 1, &uploaded, nullptr));
    sort_request sr;
    sr.keys = buffer_range{s.keys, 0, t.size};
    sr.key_type = r.key_type;
    sr.order = r.order;
    if (r.values) {
        sr.values = buffer_range{s.values, 0, t.size};
        sr.value_type = r.value_type;
        sr.has_values = true;
    }
    radix_sort_impl(sr, q);
    cl_event sorted = nullptr;
    check(clEnqueueMarkerWithWaitList(q.get(), 0, nullptr, &sorted));
    const bc::event sort_done(sorted, false);
    check(clFlush(q.get()));

    cl_event read = nullptr;
    auto download = [&](const bc::buffer& buffer, pinned_area* pin, char* dst, std::size_t width) {
        if (read) clReleaseEvent(read);
        read = nullptr;
        void* to = pin ? pin->ptr : dst + t.dst * width;
        check(clEnqueueReadBuffer(w.download.get(), buffer.get(), CL_FALSE, 0, t.size * width, to, 1, &sorted, &read));
    };
    download(s.keys, s.keys_pin.get(), j.dst.keys, j.key_bytes);
    if (r.values) download(s.values, s.values_pin.get(), j.dst.values, j.value_bytes);
    s.read = bc::event(read, false);
    s.pending = &t;
    check(clFlush(w.download.get()));
}

// One worker's loop: take a task whenever a slot comes back, until none are left.
void work(worker& w, job& j)
{
    const std::size_t slots = w.slots.size();
    bool exhausted = false;
    for (std::size_t s = 0, idle = 0; idle < slots; s = (s + 1) % slots) {
        slot& sl = w.slots[s];
        if (sl.pending) drain(sl, j);
        if (!exhausted && !j.stop) {
            const std::size_t t = j.next.fetch_add(1);
            if (t < j.tasks->size()) {
                launch(w, sl, (*j.tasks)[t], j);
                idle = 0;
                continue;
            }
            exhausted = true;
        }
        ++idle; // a full round of slots with nothing pending ends the loop
    }
}

// Runs the tasks on all workers (worker 0 on this thread) and waits for them. On an error every
// queue is finished (no transfer still writes host memory) and the first error is rethrown.
void run_pipeline(std::vector<worker>& workers, job& j)
{
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto body = [&](worker& w) {
        try {
            work(w, j);
        } catch (...) {
            j.stop = true;
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t i = 1; i < workers.size(); ++i) threads.emplace_back(body, std::ref(workers[i]));
    body(workers[0]);
    for (auto& t : threads) t.join();
    if (failure) {
        for (auto& w : workers) {
            clFinish(w.upload.get());
            clFinish(w.sort_queue->get());
            clFinish(w.download.get());
        }
        std::rethrow_exception(failure);
    }
}

} // namespace

void multi_device_sort_impl(const multi_device_request& r, std::vector<bc::command_queue>& queues)
{
    const char* who = r.values ? "clprim::multi_device_sort_by_key" : "clprim::multi_device_sort";
    if (queues.empty()) throw invalid_argument_error(std::string(who) + ": no command queues");
    for (const auto& q : queues)
        if (q.get() == nullptr) throw invalid_argument_error(std::string(who) + ": a null command queue");
    const std::size_t n = r.size;
    if (n == 0) return;

    trace_clock trace;
    guarded(who, [&] {
        std::vector<device_profile> profiles;
        for (auto& q : queues) {
            const bc::device d = q.get_device();
            require_type_support(r.key_type, d, who);
            if (r.values) require_type_support(r.value_type, d, who);
            profiles.push_back(profile_of(d));
        }
        const multi_device_policy policy = select_multi_device_policy(profiles);
        const std::size_t kb = size_of(r.key_type), vb = r.values ? size_of(r.value_type) : 0;

        // The chunk: what every worker's slots and the sort's alternate buffers hold within the
        // device's share of the scratch cap (queues of one device share it), within the largest
        // allocation, and small enough that every worker gets several chunks.
        std::map<cl_device_id, std::size_t> per_device;
        for (auto& q : queues) ++per_device[q.get_device().id()];
        std::size_t chunk = policy.max_chunk_keys;
        for (auto& q : queues) {
            const bc::device d = q.get_device();
            std::size_t budget = scratch_limit_bytes(d);
            if (budget == 0) budget = std::size_t(d.global_memory_size() / 4);
            budget = budget / per_device[d.id()] / 32 * policy.memory_fraction_32nds;
            chunk = std::min(chunk, budget / ((policy.slots + 1) * (kb + vb)));
            const std::size_t max_alloc = std::size_t(d.get_info<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE));
            chunk = std::min(chunk, max_alloc / std::max(kb, vb));
        }
        if (policy.forced_chunk_keys) chunk = std::min(chunk, policy.forced_chunk_keys);
        const std::size_t workers_count = queues.size();
        const std::size_t wanted = (n + workers_count * policy.chunks_per_queue - 1) / (workers_count * policy.chunks_per_queue);
        chunk = std::max<std::size_t>(1, std::min(chunk, std::max(wanted, policy.min_chunk_keys)));
        const std::size_t chunks = (n + chunk - 1) / chunk;
        chunk = (n + chunks - 1) / chunks; // equal chunks
        const std::size_t pieces = (chunks + workers_count - 1) / workers_count * workers_count;
        const std::size_t capacity = std::max(chunk, (n + pieces - 1) / pieces);
        const std::size_t slots = std::max<std::size_t>(1, std::min(policy.slots, (chunks + workers_count - 1) / workers_count));

        // Workers: the sort queue in order (scopes live until the end), an upload and a download
        // queue, the slots' device buffers (and pinned areas).
        std::vector<std::unique_ptr<in_order_scope>> scopes;
        std::vector<worker> workers(workers_count);
        for (std::size_t i = 0; i < workers_count; ++i) {
            scopes.push_back(std::make_unique<in_order_scope>(queues[i]));
            worker& w = workers[i];
            w.sort_queue = &scopes.back()->queue();
            const bc::context context = w.sort_queue->get_context();
            const bc::device device = w.sort_queue->get_device();
            w.upload = bc::command_queue(context, device);
            w.download = bc::command_queue(context, device);
            w.slots.resize(std::min(slots, chunks));
            std::size_t held = 0;
            for (slot& s : w.slots) {
                s.keys = allocate_device_buffer(*w.sort_queue, capacity * kb, held);
                held += capacity * kb;
                if (r.values) {
                    s.values = allocate_device_buffer(*w.sort_queue, capacity * vb, held);
                    held += capacity * vb;
                }
                if (policy.staging == multi_staging::pinned) {
                    s.keys_pin = std::make_unique<pinned_area>(w.upload, capacity * kb);
                    if (r.values) s.values_pin = std::make_unique<pinned_area>(w.upload, capacity * vb);
                }
            }
        }

        if (trace.on)
            trace.text += " n " + std::to_string(n) + ", " + std::to_string(chunks) + " chunks of " + std::to_string(chunk) +
                          ", " + std::to_string(workers_count) + " queues x " + std::to_string(slots) + " slots, " +
                          (policy.staging == multi_staging::pinned ? "pinned" : "direct") + ", " +
                          (policy.merge == multi_merge::device ? "device" : "host") + " merge;";
        trace.mark("setup");
        job phase1;
        phase1.request = &r;
        phase1.policy = &policy;
        phase1.key_bytes = kb;
        phase1.value_bytes = vb;
        phase1.src = {static_cast<char*>(r.keys), static_cast<char*>(r.values)};
        std::vector<task> chunk_tasks(chunks);
        for (std::size_t c = 0; c < chunks; ++c) {
            task& t = chunk_tasks[c];
            t.dst = balanced_bound(n, c, chunks);
            t.size = balanced_bound(n, c + 1, chunks) - t.dst;
            t.segments = {{t.dst, t.size}};
        }
        phase1.tasks = &chunk_tasks;
        if (chunks == 1) {
            phase1.dst = phase1.src;
            run_pipeline(workers, phase1);
            trace.mark("sort");
            return;
        }
        // k runs: downloaded into a temporary copy, merged from there into the caller's arrays.
        std::unique_ptr<char[]> run_keys(new char[n * kb]);
        std::unique_ptr<char[]> run_values(r.values ? new char[n * vb] : nullptr);
        phase1.dst = {run_keys.get(), run_values.get()};
        run_pipeline(workers, phase1);
        trace.mark("runs");

        sorted_runs runs;
        runs.keys = run_keys.get();
        runs.values = run_values.get();
        runs.key_type = r.key_type;
        runs.value_bytes = vb;
        runs.order = r.order;
        for (const task& t : chunk_tasks) runs.starts.push_back(t.dst);
        runs.starts.push_back(n);
        auto merge_on_host = [&] {
            host_merge(runs, static_cast<char*>(r.keys), static_cast<char*>(r.values),
                       policy.host_threads * policy.host_pieces_per_thread, policy.host_threads);
        };
        if (policy.merge == multi_merge::host) {
            merge_on_host();
            return trace.mark("host merge");
        }

        std::vector<std::size_t> bounds(pieces + 1);
        for (std::size_t p = 0; p <= pieces; ++p) bounds[p] = balanced_bound(n, p, pieces);
        const auto splits = co_ranks(runs, bounds, policy.host_threads);
        std::vector<task> piece_tasks(pieces);
        for (std::size_t p = 0; p < pieces; ++p) {
            task& t = piece_tasks[p];
            t.dst = bounds[p];
            t.size = bounds[p + 1] - bounds[p];
            for (std::size_t k = 0; k < runs.runs(); ++k)
                if (splits[p + 1][k] > splits[p][k])
                    t.segments.push_back({runs.starts[k] + splits[p][k], splits[p + 1][k] - splits[p][k]});
        }
        trace.mark("splits");
        job phase2;
        phase2.request = &r;
        phase2.policy = &policy;
        phase2.key_bytes = kb;
        phase2.value_bytes = vb;
        phase2.src = phase1.dst;
        phase2.dst = phase1.src;
        phase2.tasks = &piece_tasks;
        try {
            run_pipeline(workers, phase2);
        } catch (...) {
            merge_on_host(); // some pieces may be written: finish them all from the runs
            throw;
        }
        trace.mark("device merge");
    });
}

} // namespace detail
} // namespace clprim
