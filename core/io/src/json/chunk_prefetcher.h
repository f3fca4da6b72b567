#pragma once
// Parses the chunks of the event array ahead of the reader on worker threads, so that on a multi-core machine
// simdjson parsing runs in parallel with itself and with the (single-threaded) assembling of the model.
//
// The chunks are exactly those the sequential reader would try first: each starts where the previous one ended
// and ends at previous_cut(start, start + chunk_bytes). A chain of chunks runs from start() until it ends (end of
// the array, or no cut within chunk_bytes) or stop(); meanwhile the prefetcher owns the input: under the lock a
// worker reads the next chunk into its own ChunkParser (pread for plain files, else a copy from the input's window)
// and cuts it, then parses it outside the lock; events carry indexes counted from 0 within the chunk. The reader
// takes the chunks strictly in file order and never touches the input meanwhile; when one did not parse cleanly (a
// cut inside a string, or any error), it stops the chain and continues with its sequential code from that chunk,
// so results and error messages (always the first error in file order) are identical to a sequential read.
//
// One prefetcher serves all the chains of a read: the workers start with the first chain whose first chunk can be
// cut and wait between chains, so input that keeps the reader switching between both ways (events larger than a
// chunk, cuts inside strings) costs no thread starts.
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "input/input_bytes.h"
#include "json/chunk_parser.h"

namespace gtv::io {

struct PrefetchedChunk {
  std::size_t start = 0;  // the chunk is the elements in [start, cut)
  std::size_t cut = 0;
  std::size_t next = 0;    // where the following chunk starts (after the ',' that follows cut), when continues
  bool continues = false;  // another element follows; otherwise the reader looks at what follows cut itself
  bool ok = false;         // parsed without any error; parser holds its events (indexes from 0)
  ChunkParser parser;
};

class ChunkPrefetcher {
 public:
  // input: read by the prefetcher only while a chain runs; bare: the array form (may end at end of file); workers:
  // the threads started with the first chain.
  ChunkPrefetcher(InputBytes& input, bool bare, std::size_t chunk_bytes, unsigned workers);
  ~ChunkPrefetcher();
  ChunkPrefetcher(const ChunkPrefetcher&) = delete;
  ChunkPrefetcher& operator=(const ChunkPrefetcher&) = delete;

  // Starts a chain at start, an element of the array (the input holds the text from start on); the chunks of an
  // earlier chain not taken are dropped. The first chunk is cut here: when it cannot be, the chain is over at once
  // (next() returns nullptr) and no worker starts or wakes.
  void start(std::size_t start);
  // Ends the chain: from here on the workers do not touch the input until the next start().
  void stop();

  // The next chunk of the chain in file order once parsed, or nullptr when no more chunks were cut ahead (end of
  // the array, or no cut found within chunk_bytes). Valid until release().
  [[nodiscard]] PrefetchedChunk* next();
  // Gives the slot of the chunk returned by next() back to the workers.
  void release();

  // Worker count worth starting for an input of `bytes` on this machine (0: read sequentially).
  [[nodiscard]] static unsigned worker_count(std::size_t bytes, std::size_t chunk_bytes);

 private:
  enum class SlotState : unsigned char { Free, Parsing, Ready };
  struct Slot {
    SlotState state = SlotState::Free;
    PrefetchedChunk chunk;
  };

  void work();
  [[nodiscard]] Slot* claim_locked();  // cuts the next chunk and assigns it a slot; nullptr when none
  void start_workers();

  InputBytes& input_;
  bool bare_;
  std::size_t chunk_bytes_;
  unsigned workers_wanted_;  // threads started with the first chain
  std::vector<std::unique_ptr<Slot>> slots_;
  std::mutex mutex_;
  std::condition_variable work_cv_;   // a slot became free, a chain started, or stop
  std::condition_variable ready_cv_;  // a chunk became ready, or the chain ended
  std::condition_variable idle_cv_;   // a worker finished parsing (start() waits for the last chain's parses)
  std::size_t chain_pos_ = 0;         // start of the next chunk to cut
  std::size_t released_pos_ = 0;      // the input before this is not needed any more
  bool chain_ended_ = true;
  std::size_t claimed_ = 0;    // chunks of this chain cut so far (chunk k uses slot k % slots_.size())
  std::size_t consumed_ = 0;   // chunks of this chain released by the reader
  std::size_t parsing_ = 0;    // workers parsing a chunk now (of this chain or an earlier one)
  Slot* first_cut_ = nullptr;  // the chunk start() cut, until a worker takes it to parse
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace gtv::io
