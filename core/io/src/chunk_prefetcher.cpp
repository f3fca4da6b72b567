#include "chunk_prefetcher.h"

#include <algorithm>
#include <exception>
#include <system_error>

#include "json_scan.h"

namespace gtv::io {
namespace {

// Like previous_cut, but a ',' after the '}' must also be followed by '{': kernel names such as
// "...::{lambda(float)#1}, std::array<char*, 2ul> >" hold "}," and a cut inside them fails to parse, which would
// stop the prefetcher. (Every cut is still checked by parsing: a chunk ending inside a string cannot parse.)
std::size_t element_cut(std::string_view s, std::size_t floor, std::size_t limit, bool bare) {
  while (true) {
    const std::size_t cut = previous_cut(s, floor, limit, bare);
    if (cut == std::string_view::npos) return cut;
    const std::size_t after = skip_ws(s, cut);
    if (after >= s.size() || s[after] != ',') return cut;
    const std::size_t next = skip_ws(s, after + 1);
    if (next < s.size() && s[next] == '{') return cut;
    limit = cut - 1;
  }
}

}  // namespace

ChunkPrefetcher::ChunkPrefetcher(const InputBytes& input, std::size_t start, bool bare, std::size_t chunk_bytes,
                                 unsigned workers)
    : input_(input), s_(input.view()), bare_(bare), chunk_bytes_(chunk_bytes), chain_pos_(start) {
  // One slot more than workers: the one being assembled by the reader. Assembling a chunk takes about a third
  // of the CPU time of parsing it (perf on the 1,000,000-event benchmark), so workers rarely wait for a slot; more
  // slots would only raise memory (each holds a parser, a copy of its chunk and its events).
  const std::size_t slot_count = std::size_t{workers} + 1;
  for (std::size_t i = 0; i < slot_count; ++i) slots_.push_back(std::make_unique<Slot>());
  threads_.reserve(workers);
  try {
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  } catch (const std::system_error&) {
    // No more threads (resource limits): the ones started do the work; with none, the reader goes sequential.
    if (threads_.empty()) chain_ended_ = true;
  }
}

ChunkPrefetcher::~ChunkPrefetcher() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

unsigned ChunkPrefetcher::worker_count(std::size_t bytes, std::size_t chunk_bytes) {
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores <= 1 || bytes <= chunk_bytes) return 0;
  return std::min(cores, 4u);
}

ChunkPrefetcher::Slot* ChunkPrefetcher::claim_locked() {
  if (chain_ended_ || claimed_ >= consumed_ + slots_.size()) return nullptr;
  const std::size_t start = chain_pos_;
  const std::size_t cut = element_cut(s_, start, std::min(s_.size(), start + chunk_bytes_), bare_);
  if (cut == std::string_view::npos) {
    chain_ended_ = true;  // the reader's own search (with growing windows) takes over here
    ready_cv_.notify_all();
    return nullptr;
  }
  // The next chunk starts after the ',' that follows the cut; anything else ends the chain and is left to the
  // reader, which checks it exactly as without prefetching.
  const std::size_t after = skip_ws(s_, cut);
  const std::size_t next = after < s_.size() && s_[after] == ',' ? skip_ws(s_, after + 1) : s_.size();
  if (next < s_.size() && s_[next] != ']') {
    chain_pos_ = next;
  } else {
    chain_ended_ = true;
  }
  Slot* slot = slots_[claimed_ % slots_.size()].get();
  slot->state = SlotState::Parsing;
  slot->chunk.start = start;
  slot->chunk.cut = cut;
  slot->chunk.ok = false;
  ++claimed_;
  return slot;
}

void ChunkPrefetcher::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    Slot* slot = claim_locked();
    if (slot == nullptr) {
      if (chain_ended_) return;
      work_cv_.wait(lock);
      continue;
    }
    lock.unlock();
    PrefetchedChunk& c = slot->chunk;
    try {
      const std::size_t size = c.cut - c.start;
      c.ok = input_.copy_out(c.start, size, c.parser.buffer_for(size)) &&
             c.parser.parse_buffer(size, 0).kind == ChunkResult::Kind::Ok;
    } catch (const std::exception&) {
      c.ok = false;  // out of memory here: the reader parses this chunk itself and reports what happens there
    }
    lock.lock();
    slot->state = SlotState::Ready;
    ready_cv_.notify_all();
  }
}

PrefetchedChunk* ChunkPrefetcher::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (consumed_ < claimed_) {
      Slot& slot = *slots_[consumed_ % slots_.size()];
      if (slot.state == SlotState::Ready) return &slot.chunk;
    } else if (chain_ended_) {
      return nullptr;
    }
    ready_cv_.wait(lock);
  }
}

void ChunkPrefetcher::release() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    slots_[consumed_ % slots_.size()]->state = SlotState::Free;
    ++consumed_;
  }
  work_cv_.notify_all();
}

}  // namespace gtv::io
