#pragma once
// Parses the chunks of the event array ahead of the reader on worker threads, so that on a multi-core machine
// simdjson parsing runs in parallel with itself and with the (single-threaded) assembling of the model.
//
// The chunks are exactly those the sequential reader would try first: each starts where the previous one ended
// and ends at previous_cut(start, start + chunk_bytes). Workers only read the input (each parses a copy of its
// chunk in its own ChunkParser, read from the file by InputBytes::copy_out) and their events carry indexes counted from 0 within the chunk. The reader takes
// the chunks strictly in file order; when one did not parse cleanly (a cut inside a string, or any error), it
// stops the prefetcher and continues with its sequential code from that chunk, so results and error messages
// (always the first error in file order) are identical to a sequential read.
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "chunk_parser.h"
#include "input_bytes.h"

namespace gtv::io {

struct PrefetchedChunk {
  std::size_t start = 0;  // the chunk is the elements in [start, cut)
  std::size_t cut = 0;
  bool ok = false;  // parsed without any error; parser holds its events (indexes from 0)
  ChunkParser parser;
};

class ChunkPrefetcher {
 public:
  // input: the whole input; start: first element of the array; bare: the array form (may end at end of file).
  ChunkPrefetcher(const InputBytes& input, std::size_t start, bool bare, std::size_t chunk_bytes, unsigned workers);
  ~ChunkPrefetcher();
  ChunkPrefetcher(const ChunkPrefetcher&) = delete;
  ChunkPrefetcher& operator=(const ChunkPrefetcher&) = delete;

  // The next chunk in file order once parsed, or nullptr when no more chunks were cut ahead (end of the array,
  // or no cut found within chunk_bytes). Valid until release().
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

  const InputBytes& input_;
  std::string_view s_;
  bool bare_;
  std::size_t chunk_bytes_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::mutex mutex_;
  std::condition_variable work_cv_;   // a slot became free, or stop
  std::condition_variable ready_cv_;  // a chunk became ready, or the chain ended
  std::size_t chain_pos_;             // start of the next chunk to cut
  bool chain_ended_ = false;
  std::size_t claimed_ = 0;   // chunks cut so far (chunk k uses slot k % slots_.size())
  std::size_t consumed_ = 0;  // chunks released by the reader
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace gtv::io
