// The multi-device sort's transfer pipeline (see multi_device_pipeline.hpp).
#include "multi_device_pipeline.hpp"
#include "multi_device_merge.hpp"

#include <clprim/detail/scratch_pool.hpp>
#include <clprim/radix_sort.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace clprim {
namespace detail {

namespace {

void check(cl_int err)
{
    if (err != CL_SUCCESS) throw bc::opencl_error(err);
}

// A mapped CL_MEM_ALLOC_HOST_PTR buffer: host memory the device copies from and to at full speed.
struct pinned_area {
    bc::command_queue queue; // maps and unmaps
    bc::buffer buffer;
    void* ptr = nullptr;
    std::size_t bytes;

    pinned_area(const bc::context& context, const bc::device& device, std::size_t size)
        : queue(context, device), bytes(size)
    {
        cl_int err = CL_SUCCESS;
        const cl_mem mem = clCreateBuffer(context.get(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &err);
        check(err);
        buffer = bc::buffer(mem, false);
        ptr = clEnqueueMapBuffer(queue.get(), mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &err);
        check(err);
    }
    ~pinned_area()
    {
        if (ptr) {
            clEnqueueUnmapMemObject(queue.get(), buffer.get(), ptr, 0, nullptr, nullptr);
            clFinish(queue.get());
        }
    }
};
using pinned_ring = std::vector<std::unique_ptr<pinned_area>>;

// Staging blocks kept per (context, device) for the next call: pinning memory costs about as
// much as copying it. One call's rings per (context, device), for the 4 pairs used last (the
// cache itself is never destroyed: no OpenCL release after the driver's exit).
constexpr std::size_t staging_kept_pairs = 4;
struct staging_cache {
    std::mutex mutex;
    std::map<std::pair<cl_context, cl_device_id>, pinned_ring> kept;
    std::deque<std::pair<cl_context, cl_device_id>> recent; // least recently given back first
};
staging_cache& staging() { static staging_cache* c = new staging_cache; return *c; }

pinned_ring take_staging(const bc::context& context, const bc::device& device, std::size_t count, std::size_t bytes)
{
    pinned_ring ring;
    {
        std::lock_guard<std::mutex> lock(staging().mutex);
        auto& kept = staging().kept[{context.get(), device.id()}];
        for (auto it = kept.begin(); it != kept.end() && ring.size() < count;) {
            if ((*it)->bytes == bytes) {
                ring.push_back(std::move(*it));
                it = kept.erase(it);
            } else {
                ++it;
            }
        }
    }
    while (ring.size() < count) ring.push_back(std::make_unique<pinned_area>(context, device, bytes));
    return ring;
}

void give_back_staging(const bc::context& context, const bc::device& device, pinned_ring& ring, std::size_t keep)
{
    pinned_ring dropped; // released after the lock
    std::lock_guard<std::mutex> lock(staging().mutex);
    staging_cache& c = staging();
    const std::pair<cl_context, cl_device_id> key{context.get(), device.id()};
    auto& kept = c.kept[key];
    for (auto& a : ring)
        if (a && kept.size() < keep) kept.push_back(std::move(a));
    ring.clear();
    c.recent.erase(std::remove(c.recent.begin(), c.recent.end(), key), c.recent.end());
    c.recent.push_back(key);
    while (c.recent.size() > staging_kept_pairs) {
        auto old = c.kept.find(c.recent.front());
        if (old != c.kept.end()) {
            for (auto& a : old->second) dropped.push_back(std::move(a));
            c.kept.erase(old);
        }
        c.recent.pop_front();
    }
}

struct handoff {
    const pipeline_task* task;
    std::size_t slot;
    bc::event sorted; // the marker after the sort
};

struct job {
    const std::vector<pipeline_task>* tasks;
    host_arrays src, dst;
    std::mutex claim_mutex;
    std::size_t front = 0, back = 0; // tasks [front, back) are unclaimed
    std::atomic<bool> stop{false};
    std::mutex failure_mutex;
    std::exception_ptr failure;

    // The next task from the front (devices) or the back (the host), or none (tasks->size()).
    std::size_t claim(bool from_back)
    {
        std::lock_guard<std::mutex> lock(claim_mutex);
        if (front >= back || stop) return tasks->size();
        return from_back ? --back : front++;
    }

    void fail()
    {
        stop = true;
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
    }
};

} // namespace

struct pipeline_workers::worker {
    bc::command_queue* sort_queue = nullptr;
    bc::command_queue upload, download;
    struct slot {
        bc::buffer keys, values;
    };
    std::vector<slot> slots;
    pinned_ring up_ring, down_ring; // pinned staging only
    std::vector<bc::event> up_events;
    std::size_t up_next = 0;

    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::size_t> free_slots;
    std::deque<handoff> ready;
    bool uploads_done = false;

    template <class Pred>
    bool wait_for(std::unique_lock<std::mutex>& lock, job& j, Pred pred) // false: stopped
    {
        while (!pred()) {
            if (j.stop) return false;
            changed.wait_for(lock, std::chrono::milliseconds(20));
        }
        return true;
    }
};

pipeline_workers::pipeline_workers(std::vector<bc::command_queue*> sort_queues, const multi_device_request& request,
                                   const multi_device_policy& policy, std::size_t slots, std::size_t capacity)
    : request_(request), policy_(policy)
{
    const std::size_t kb = size_of(request.key_type), vb = request.values ? size_of(request.value_type) : 0;
    for (bc::command_queue* q : sort_queues) {
        workers_.push_back(std::make_unique<worker>());
        worker& w = *workers_.back();
        w.sort_queue = q;
        const bc::context context = q->get_context();
        const bc::device device = q->get_device();
        w.upload = bc::command_queue(context, device);
        w.download = bc::command_queue(context, device);
        std::size_t held = 0;
        for (std::size_t s = 0; s < slots; ++s) {
            worker::slot sl;
            sl.keys = allocate_device_buffer(*q, capacity * kb, held);
            held += capacity * kb;
            if (request.values) {
                sl.values = allocate_device_buffer(*q, capacity * vb, held);
                held += capacity * vb;
            }
            w.slots.push_back(sl);
        }
        if (policy.staging == multi_staging::pinned) {
            w.up_ring = take_staging(context, device, policy.staging_blocks, policy.staging_block_bytes);
            w.down_ring = take_staging(context, device, policy.staging_blocks, policy.staging_block_bytes);
            w.up_events.resize(policy.staging_blocks);
        }
    }
}

pipeline_workers::~pipeline_workers()
{
    for (auto& w : workers_) {
        try {
            if (w->up_ring.empty()) continue;
            const bc::context context = w->upload.get_context();
            const bc::device device = w->upload.get_device();
            give_back_staging(context, device, w->up_ring, 2 * policy_.staging_blocks);
            give_back_staging(context, device, w->down_ring, 2 * policy_.staging_blocks);
        } catch (...) {
            // the rings are released with the worker instead
        }
    }
}

namespace {

// Uploads the task's segments of one array into buffer: directly, or block by block through the
// ring (a block is refilled once its previous write has ended). Returns the last write's event.
template <class Worker>
bc::event upload_array(Worker& w, const pipeline_task& t, const bc::buffer& buffer, const char* src, std::size_t width,
                       const multi_device_policy& policy, copy_team& copies)
{
    cl_event last = nullptr;
    std::size_t at = 0;
    for (const auto& seg : t.segments) {
        const char* from = src + seg.first * width;
        const std::size_t bytes = seg.second * width;
        for (std::size_t done = 0; done < bytes;) {
            const std::size_t len = w.up_ring.empty() ? bytes : std::min(policy.staging_block_bytes, bytes - done);
            const void* host = from + done;
            cl_event* out = &last;
            if (!w.up_ring.empty()) {
                const std::size_t b = w.up_next++ % w.up_ring.size();
                if (w.up_events[b].get()) w.up_events[b].wait();
                copies.copy(w.up_ring[b]->ptr, host, len);
                host = w.up_ring[b]->ptr;
                cl_event e = nullptr;
                check(clEnqueueWriteBuffer(w.upload.get(), buffer.get(), CL_FALSE, at + done, len, host, 0, nullptr, &e));
                w.up_events[b] = bc::event(e, false);
                check(clFlush(w.upload.get()));
                done += len;
                continue;
            }
            if (last) clReleaseEvent(last);
            last = nullptr;
            check(clEnqueueWriteBuffer(w.upload.get(), buffer.get(), CL_FALSE, at + done, len, host, 0, nullptr, out));
            done += len;
        }
        at += bytes;
    }
    if (!w.up_ring.empty()) {
        cl_event marker = nullptr;
        check(clEnqueueMarkerWithWaitList(w.upload.get(), 0, nullptr, &marker));
        last = marker;
    }
    check(clFlush(w.upload.get()));
    return bc::event(last, false);
}

// Downloads size elements of buffer to dst after `sorted`: directly, or through the ring (a block
// is copied out by the host while the next ones are in flight). Returns when the data is there.
template <class Worker>
void download_array(Worker& w, const bc::buffer& buffer, std::size_t bytes, char* dst, const bc::event& sorted,
                    const multi_device_policy& policy, copy_team& copies)
{
    cl_event wait = sorted.get();
    if (w.down_ring.empty()) {
        cl_event e = nullptr;
        check(clEnqueueReadBuffer(w.download.get(), buffer.get(), CL_FALSE, 0, bytes, dst, 1, &wait, &e));
        const bc::event read(e, false);
        check(clFlush(w.download.get()));
        read.wait();
        return;
    }
    struct in_flight {
        bc::event read;
        std::size_t block, at, len;
    };
    std::deque<in_flight> reads;
    const std::size_t blocks = w.down_ring.size();
    std::size_t next_block = 0;
    for (std::size_t at = 0; at < bytes || !reads.empty();) {
        if (at < bytes && reads.size() < blocks) {
            const std::size_t len = std::min(policy.staging_block_bytes, bytes - at);
            const std::size_t b = next_block++ % blocks;
            cl_event e = nullptr;
            check(clEnqueueReadBuffer(w.download.get(), buffer.get(), CL_FALSE, at, len, w.down_ring[b]->ptr, 1, &wait, &e));
            reads.push_back({bc::event(e, false), b, at, len});
            check(clFlush(w.download.get()));
            at += len;
            continue;
        }
        in_flight f = std::move(reads.front());
        reads.pop_front();
        f.read.wait();
        copies.copy(dst + f.at, w.down_ring[f.block]->ptr, f.len);
    }
}

} // namespace

void pipeline_workers::run(const std::vector<pipeline_task>& tasks, host_arrays src, host_arrays dst,
                           const std::function<void(std::size_t)>& host_task)
{
    const multi_device_request& r = request_;
    const multi_device_policy& policy = policy_;
    const std::size_t kb = size_of(r.key_type), vb = r.values ? size_of(r.value_type) : 0;
    job j;
    j.tasks = &tasks;
    j.back = tasks.size();
    j.src = src;
    j.dst = dst;
    for (auto& w : workers_) {
        w->free_slots.clear();
        for (std::size_t s = 0; s < w->slots.size(); ++s) w->free_slots.push_back(w->slots.size() - 1 - s);
        w->ready.clear();
        w->uploads_done = false;
    }

    const std::size_t team = policy.staging == multi_staging::pinned ? policy.copy_threads : 1;
    auto uploader = [&](worker& w) {
        try {
            copy_team copies(team);
            for (;;) {
                std::size_t s;
                {
                    std::unique_lock<std::mutex> lock(w.mutex);
                    if (!w.wait_for(lock, j, [&] { return !w.free_slots.empty(); })) break;
                    s = w.free_slots.back();
                    w.free_slots.pop_back();
                }
                const std::size_t i = j.claim(false);
                if (i >= tasks.size()) break;
                const pipeline_task& t = tasks[i];
                const auto& sl = w.slots[s];
                bc::event uploaded = upload_array(w, t, sl.keys, src.keys, kb, policy, copies);
                if (r.values) uploaded = upload_array(w, t, sl.values, src.values, vb, policy, copies);
                bc::command_queue& q = *w.sort_queue;
                // The sort is enqueued once the upload has ended (the upload queue is in order:
                // its last command's event). A host wait rather than a barrier on the sort queue
                // with the event: this thread has nothing else to do meanwhile (the next upload
                // queues behind this one anyway), and no driver's cross-queue barrier is relied on.
                uploaded.wait();
                sort_request sr;
                sr.keys = buffer_range{sl.keys, 0, t.size};
                sr.key_type = r.key_type;
                sr.order = r.order;
                if (r.values) {
                    sr.values = buffer_range{sl.values, 0, t.size};
                    sr.value_type = r.value_type;
                    sr.has_values = true;
                }
                radix_sort_impl(sr, q);
                cl_event marker = nullptr;
                check(clEnqueueMarkerWithWaitList(q.get(), 0, nullptr, &marker));
                bc::event sorted(marker, false);
                check(clFlush(q.get()));
                std::lock_guard<std::mutex> lock(w.mutex);
                w.ready.push_back({&t, s, sorted});
                w.changed.notify_all();
            }
        } catch (...) {
            j.fail();
        }
        std::lock_guard<std::mutex> lock(w.mutex);
        w.uploads_done = true;
        w.changed.notify_all();
    };
    auto downloader = [&](worker& w) {
        try {
            copy_team copies(team);
            for (;;) {
                handoff h;
                {
                    std::unique_lock<std::mutex> lock(w.mutex);
                    if (!w.wait_for(lock, j, [&] { return !w.ready.empty() || w.uploads_done; })) break;
                    if (w.ready.empty()) break;
                    h = std::move(w.ready.front());
                    w.ready.pop_front();
                }
                const pipeline_task& t = *h.task;
                const auto& sl = w.slots[h.slot];
                h.sorted.wait(); // the reads wait for the marker as well
                download_array(w, sl.keys, t.size * kb, dst.keys + t.dst * kb, h.sorted, policy, copies);
                if (r.values) download_array(w, sl.values, t.size * vb, dst.values + t.dst * vb, h.sorted, policy, copies);
                std::lock_guard<std::mutex> lock(w.mutex);
                w.free_slots.push_back(h.slot);
                w.changed.notify_all();
            }
        } catch (...) {
            j.fail();
        }
    };

    std::vector<std::thread> threads;
    if (host_task)
        threads.emplace_back([&] {
            try {
                for (std::size_t i; (i = j.claim(true)) < tasks.size();) host_task(i);
            } catch (...) {
                j.fail();
            }
        });
    for (std::size_t i = 0; i < workers_.size(); ++i) {
        threads.emplace_back(downloader, std::ref(*workers_[i]));
        if (i > 0) threads.emplace_back(uploader, std::ref(*workers_[i]));
    }
    uploader(*workers_[0]); // the calling thread: its kernel objects stay for the next call
    for (auto& t : threads) t.join();
    if (j.failure) {
        for (auto& w : workers_) {
            clFinish(w->upload.get());
            clFinish(w->sort_queue->get());
            clFinish(w->download.get());
        }
        std::rethrow_exception(j.failure);
    }
}

} // namespace detail
} // namespace clprim
