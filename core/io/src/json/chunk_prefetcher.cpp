#include "json/chunk_prefetcher.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <system_error>
#include <utility>

#include "json/json_scan.h"

namespace gtv::io {
namespace {

// Text read after a chunk's end, to see the ',' and the '{' that follow a cut.
constexpr std::size_t kLookaheadBytes = std::size_t{4} << 10;

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

ChunkPrefetcher::ChunkPrefetcher(InputBytes& input, bool bare, std::size_t chunk_bytes, unsigned workers)
    : input_(input), bare_(bare), chunk_bytes_(chunk_bytes), workers_wanted_(workers) {
  // One slot more than workers: the one being assembled by the reader. Assembling a chunk takes about a third
  // of the CPU time of parsing it (perf on the 1,000,000-event benchmark), so workers rarely wait for a slot; more
  // slots would only raise memory (each holds a parser, a copy of its chunk and its events).
  const std::size_t slot_count = std::size_t{workers} + 1;
  for (std::size_t i = 0; i < slot_count; ++i) slots_.push_back(std::make_unique<Slot>());
}

ChunkPrefetcher::~ChunkPrefetcher() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ChunkPrefetcher::start(std::size_t start) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    // The slots of the last chain are reused: wait for the parses still running in them.
    idle_cv_.wait(lock, [this] { return parsing_ == 0; });
    for (const std::unique_ptr<Slot>& slot : slots_) slot->state = SlotState::Free;
    chain_pos_ = start;
    released_pos_ = start;
    chain_ended_ = false;
    claimed_ = 0;
    consumed_ = 0;
    try {
      first_cut_ = claim_locked();
    } catch (const std::exception&) {
      chain_ended_ = true;  // out of memory: the reader goes on sequentially and reports what happens there
      first_cut_ = nullptr;
    }
    if (first_cut_ == nullptr) return;  // no chain: nothing for the workers to do
    if (threads_.empty()) {
      start_workers();
      if (threads_.empty()) {
        // No thread could start (resource limits): the reader goes sequential, parsing the first chunk itself.
        chain_ended_ = true;
        first_cut_ = nullptr;
        claimed_ = 0;
        return;
      }
    }
  }
  work_cv_.notify_all();
}

void ChunkPrefetcher::start_workers() {
  threads_.reserve(workers_wanted_);
  try {
    for (unsigned i = 0; i < workers_wanted_; ++i) threads_.emplace_back([this] { work(); });
  } catch (const std::system_error&) {
    // No more threads (resource limits): the ones started do the work.
  }
}

void ChunkPrefetcher::stop() {
  const std::lock_guard<std::mutex> lock(mutex_);
  chain_ended_ = true;
  first_cut_ = nullptr;
}

unsigned ChunkPrefetcher::worker_count(std::size_t bytes, std::size_t chunk_bytes) {
  // Read once: std::thread::hardware_concurrency() reads /sys (glibc) on every call.
  static const unsigned cores = std::thread::hardware_concurrency();
  if (cores <= 1 || bytes <= chunk_bytes) return 0;
  return std::min(cores, 4u);
}

ChunkPrefetcher::Slot* ChunkPrefetcher::claim_locked() {
  if (chain_ended_ || claimed_ >= consumed_ + slots_.size()) return nullptr;
  const std::size_t start = chain_pos_;
  Slot* slot = slots_[claimed_ % slots_.size()].get();
  PrefetchedChunk& c = slot->chunk;
  // The chunk's text and what follows it: read from the file into the slot's own buffer when it allows, so each
  // byte is copied once; else through the input's window.
  std::string_view s;
  bool eof = false;
  if (input_.random_access()) {
    char* buffer = c.parser.buffer_for(chunk_bytes_ + kLookaheadBytes);
    const Expected<std::size_t> n = input_.read_at(start, buffer, chunk_bytes_ + kLookaheadBytes);
    s = std::string_view(buffer, n ? *n : 0);  // on an error the chain ends: the reader meets it again
    eof = !n || *n < chunk_bytes_ + kLookaheadBytes;
  } else {
    input_.drop_before(released_pos_);
    input_.fill_to(start + chunk_bytes_ + kLookaheadBytes);
    s = input_.view().substr(start - input_.begin());
    eof = input_.at_eof();
  }
  const std::size_t cut = element_cut(s, 0, std::min(s.size(), chunk_bytes_), bare_ || !eof);
  if (cut == std::string_view::npos) {
    chain_ended_ = true;  // the reader's own search (with growing windows) takes over here
    ready_cv_.notify_all();
    return nullptr;
  }
  // The next chunk starts after the ',' that follows the cut; anything else ends the chain and is left to the
  // reader, which checks it exactly as without prefetching.
  const std::size_t after = skip_ws(s, cut);
  const std::size_t next = after < s.size() && s[after] == ',' ? skip_ws(s, after + 1) : s.size();
  const bool continues = next < s.size() && s[next] != ']';
  // Copied under the lock: the next claim may move the input's buffer.
  if (!input_.random_access()) std::memcpy(c.parser.buffer_for(cut), s.data(), cut);
  if (continues) {
    chain_pos_ = start + next;
  } else {
    chain_ended_ = true;
  }
  slot->state = SlotState::Parsing;
  c.start = start;
  c.cut = start + cut;
  c.next = start + next;
  c.continues = continues;
  c.ok = false;
  ++claimed_;
  return slot;
}

void ChunkPrefetcher::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    Slot* slot = std::exchange(first_cut_, nullptr);
    if (slot == nullptr) {
      try {
        slot = claim_locked();
      } catch (const std::exception&) {
        chain_ended_ = true;  // out of memory: the reader goes on sequentially and reports what happens there
        ready_cv_.notify_all();
      }
    }
    if (slot == nullptr) {
      work_cv_.wait(lock);  // for a free slot, the next chain, or stop
      continue;
    }
    ++parsing_;
    lock.unlock();
    PrefetchedChunk& c = slot->chunk;
    try {
      c.ok = c.parser.parse_buffer(c.cut - c.start, 0).kind == ChunkResult::Kind::Ok;
    } catch (const std::exception&) {
      c.ok = false;  // out of memory here: the reader parses this chunk itself and reports what happens there
    }
    lock.lock();
    slot->state = SlotState::Ready;
    --parsing_;
    ready_cv_.notify_all();
    if (parsing_ == 0) idle_cv_.notify_all();
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
    Slot& slot = *slots_[consumed_ % slots_.size()];
    slot.state = SlotState::Free;
    released_pos_ = slot.chunk.cut;
    ++consumed_;
  }
  work_cv_.notify_all();
}

}  // namespace gtv::io
