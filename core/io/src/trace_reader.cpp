// read_trace: the top level of the file is walked with small scalar helpers; the event array is cut into chunks
// of about 1 MiB at element boundaries and each chunk is parsed with simdjson On Demand. Memory stays bounded
// by the chunk size (not the file size), and pages of a mapped file that were parsed are released. On a
// multi-core machine the chunks are parsed ahead on worker threads (ChunkPrefetcher) while this thread assembles
// the model from them in file order.
#include <memory>
#include <string>

#include "chunk_parser.h"
#include "chunk_prefetcher.h"
#include "gtv/io/trace_file.h"
#include "input_bytes.h"
#include "json_scan.h"
#include "trace_assembler.h"

namespace gtv::io {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
constexpr int kMaxCutTries = 8;
// Each start of the prefetcher costs threads and may waste the chunks parsed ahead: on input where its cuts keep
// failing, the rest is read sequentially.
constexpr int kMaxPrefetchStarts = 16;
// Chunks parsed ahead are smaller: each worker slot holds about five times its chunk (copy, simdjson's indexes
// and strings, events), and half a MiB keeps peak memory at the sequential reader's level at no cost in speed.
constexpr std::size_t kPrefetchChunkBytes = kChunkBytes / 2;
// One event may not exceed this: it bounds the parser's memory (about six times the chunk) on hostile input.
constexpr std::size_t kMaxEventBytes = std::size_t{64} << 20;

class FileReader {
 public:
  FileReader(InputBytes& input, std::string name, const ReadOptions& options)
      : input_(input), s_(input.view()), name_(std::move(name)), options_(options), assembler_(name_, s_.size()) {}

  Expected<Trace> run();

 private:
  Status read_object(std::size_t pos);
  Status read_events(std::size_t& pos, bool bare);
  Status take_prefetched(ChunkPrefetcher& prefetch, std::size_t& pos, bool& taken);
  Status parse_next_chunk(std::size_t& pos, bool bare);
  bool parse_chunk(std::size_t pos, std::size_t cut, Status& status);
  std::size_t exact_cut(std::size_t pos, std::size_t limit) const;
  Status final_error(std::size_t pos);
  Status error_at(std::size_t offset, const std::string& what) const {
    return Error{name_ + ": " + where(offset) + ": " + what};
  }
  Status event_error(std::uint64_t index, std::size_t offset, const std::string& what) const {
    return Error{name_ + ": event " + std::to_string(index) + " (" + where(offset) + "): " + what};
  }
  std::string where(std::size_t offset) const {
    return (input_.was_gzip() ? "inflated byte " : "byte ") + std::to_string(offset);
  }

  InputBytes& input_;
  std::string_view s_;
  std::string name_;
  const ReadOptions& options_;
  TraceAssembler assembler_;
  ChunkParser parser_;
  std::uint64_t index_ = 0;  // index of the next element of traceEvents
  std::uint64_t chunks_ = 0;
  std::uint64_t chunks_ahead_ = 0;
  bool seen_events_ = false;
};

Expected<Trace> FileReader::run() {
  std::size_t pos = 0;
  if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;  // UTF-8 byte order mark
  pos = skip_ws(s_, pos);
  if (pos >= s_.size()) return Error{name_ + ": file is empty (no JSON value)"};
  Status status = ok_status();
  if (s_[pos] == '[') {
    ++pos;
    status = read_events(pos, true);
    seen_events_ = true;
    if (status && skip_ws(s_, pos) < s_.size())
      status = error_at(skip_ws(s_, pos), "unexpected data after the event array");
  } else if (s_[pos] == '{') {
    status = read_object(pos);
  } else {
    status = error_at(pos, "not a JSON trace: expected '{' or '[' but found " + describe_char(s_, pos));
  }
  if (!status) return status.error();
  if (!seen_events_) return Error{name_ + ": no 'traceEvents' array in the JSON object"};
  ReadStats* stats = options_.stats;
  if (stats != nullptr) {
    stats->array_elements = index_;
    stats->json_bytes = s_.size();
    stats->gzip = input_.was_gzip();
    stats->chunks = chunks_;
    stats->chunks_parsed_ahead = chunks_ahead_;
  }
  return assembler_.finish(stats);
}

Status FileReader::read_object(std::size_t pos) {
  pos = skip_ws(s_, pos + 1);
  bool open = !(pos < s_.size() && s_[pos] == '}');
  if (!open) ++pos;
  while (open) {
    if (pos >= s_.size() || s_[pos] != '"')
      return error_at(pos, "expected a key but found " + describe_char(s_, pos));
    const std::size_t key_end = string_end(s_, pos);
    if (key_end == std::string_view::npos) return error_at(pos, "unterminated string");
    const std::string_view key = s_.substr(pos + 1, key_end - pos - 2);
    pos = skip_ws(s_, key_end);
    if (pos >= s_.size() || s_[pos] != ':') return error_at(pos, "expected ':' but found " + describe_char(s_, pos));
    pos = skip_ws(s_, pos + 1);
    if (key == "traceEvents") {
      if (pos >= s_.size() || s_[pos] != '[') return error_at(pos, "'traceEvents' is not an array");
      ++pos;
      if (Status st = read_events(pos, false); !st) return st;
      seen_events_ = true;
    } else {
      std::size_t end = 0;
      ScanError err;
      if (!skip_value(s_, pos, end, err)) return error_at(err.offset, err.what);
      if (is_interesting_top_level_key(key)) {
        if (Status st = parse_top_level_value(key, s_.substr(pos, end - pos), assembler_.header()); !st)
          return error_at(pos, st.error().message);
      }
      pos = end;
    }
    pos = skip_ws(s_, pos);
    if (pos < s_.size() && s_[pos] == ',') {
      pos = skip_ws(s_, pos + 1);
    } else if (pos < s_.size() && s_[pos] == '}') {
      ++pos;
      open = false;
    } else {
      return error_at(pos, "expected ',' or '}' but found " + describe_char(s_, pos));
    }
  }
  pos = skip_ws(s_, pos);
  if (pos < s_.size()) return error_at(pos, "unexpected data after the end of the JSON object");
  return ok_status();
}

// Parses [pos, cut) as whole elements. False when the cut was not at an element boundary (syntax error); status
// is set to an error for problems that no other cut can fix.
bool FileReader::parse_chunk(std::size_t pos, std::size_t cut, Status& status) {
  const std::size_t readable_after = s_.size() - cut + input_.readable_after_end();
  const ChunkResult r = input_.writable() != nullptr && pos > 0 && ChunkParser::can_parse_in_place(readable_after)
                            ? parser_.parse_in_place(input_.writable() + pos, cut - pos, readable_after - 1, index_)
                            : parser_.parse(s_.substr(pos, cut - pos), index_);
  if (r.kind == ChunkResult::Kind::Syntax) return false;
  if (r.kind == ChunkResult::Kind::Semantic) {
    status = event_error(r.event_index, pos + r.offset, r.message);
    return true;
  }
  status = assembler_.add_chunk(parser_.events(), parser_.counter_values(), pos);
  index_ += parser_.events().size();
  return true;
}

// The end of the last whole element that ends at or before limit, found by walking the elements (slow path for
// chunks where the quick search for "}," kept landing inside strings).
std::size_t FileReader::exact_cut(std::size_t pos, std::size_t limit) const {
  std::size_t best = std::string_view::npos;
  std::size_t p = pos;
  while (true) {
    std::size_t end = 0;
    ScanError err;
    if (!skip_value(s_, skip_ws(s_, p), end, err) || end > limit) return best;
    best = end;
    p = skip_ws(s_, end);
    if (p >= s_.size() || s_[p] != ',') return best;
    ++p;
  }
}

Status FileReader::read_events(std::size_t& pos, bool bare) {
  std::unique_ptr<ChunkPrefetcher> prefetch;
  int prefetch_starts = 0;
  while (true) {
    pos = skip_ws(s_, pos);
    if (pos >= s_.size()) {
      if (bare) return ok_status();  // the array form may omit its closing ']'
      return error_at(pos, "unexpected end of file inside 'traceEvents' (missing ']')");
    }
    if (s_[pos] == ']') {
      ++pos;
      return ok_status();
    }
    if (prefetch == nullptr && prefetch_starts < kMaxPrefetchStarts) {
      // (Re)started after a chunk the workers could not cut cleanly was read sequentially.
      if (const unsigned workers = ChunkPrefetcher::worker_count(s_.size() - pos, kChunkBytes); workers > 0) {
        prefetch = std::make_unique<ChunkPrefetcher>(input_, pos, bare, kPrefetchChunkBytes, workers);
        ++prefetch_starts;
      }
    }
    bool taken = false;
    if (prefetch != nullptr) {
      if (Status st = take_prefetched(*prefetch, pos, taken); !st) return st;
      if (!taken) prefetch.reset();  // this chunk sequentially, exactly as without prefetching
    }
    if (!taken) {
      if (Status st = parse_next_chunk(pos, bare); !st) return st;
    }
    ++chunks_;
    if (taken) ++chunks_ahead_;
    input_.release_before(pos);
    if (options_.progress != nullptr) {
      const double parsed = static_cast<double>(pos) / static_cast<double>(s_.size());
      const double fraction = input_.was_gzip() ? 0.5 + 0.5 * parsed : parsed;  // inflating was the first half
      if (!options_.progress(options_.progress_context, fraction)) return Error{name_ + ": reading cancelled"};
    }
    pos = skip_ws(s_, pos);
    if (pos < s_.size() && s_[pos] == ',') {
      ++pos;
    } else if (pos < s_.size() && s_[pos] == ']') {
      ++pos;
      return ok_status();
    } else if (!(pos >= s_.size() && bare)) {
      return error_at(pos, "expected ',' or ']' in 'traceEvents' but found " + describe_char(s_, pos));
    }
  }
}

// Takes the chunk at pos from the prefetcher when it parsed cleanly (taken); otherwise leaves pos alone.
Status FileReader::take_prefetched(ChunkPrefetcher& prefetch, std::size_t& pos, bool& taken) {
  PrefetchedChunk* chunk = prefetch.next();
  taken = chunk != nullptr && chunk->ok && chunk->start == pos;
  if (!taken) return ok_status();
  chunk->parser.set_first_index(index_);
  Status status = assembler_.add_chunk(chunk->parser.events(), chunk->parser.counter_values(), pos);
  index_ += chunk->parser.events().size();
  pos = chunk->cut;
  prefetch.release();
  return status;
}

// Parses the chunk that starts at pos, trying cuts and growing the window as needed; pos moves past it.
Status FileReader::parse_next_chunk(std::size_t& pos, bool bare) {
  Status status = ok_status();
  std::size_t window = kChunkBytes;
  while (true) {
    const std::size_t window_end = std::min(s_.size(), pos + window);
    std::size_t cut = previous_cut(s_, pos, window_end, bare);
    bool parsed = false;
    for (int tries = 1; cut != std::string_view::npos; ++tries) {
      if (parse_chunk(pos, cut, status)) {
        parsed = true;
        break;
      }
      if (tries < kMaxCutTries) {
        cut = previous_cut(s_, pos, cut - 1, bare);
      } else {
        cut = tries == kMaxCutTries ? exact_cut(pos, window_end) : std::string_view::npos;
      }
    }
    if (!status) return status;
    if (parsed) {
      pos = cut;
      return ok_status();
    }
    if (window_end == s_.size()) return final_error(pos);
    if (window >= kMaxEventBytes)
      return event_error(index_, pos, "event is larger than " + std::to_string(kMaxEventBytes >> 20) +
                                          " MiB (limit)");
    window *= 2;
  }
}

// No chunk boundary worked: walk the elements one by one to name the first one that is broken.
Status FileReader::final_error(std::size_t pos) {
  std::uint64_t index = index_;
  std::size_t p = pos;
  while (true) {
    p = skip_ws(s_, p);
    std::size_t end = 0;
    ScanError err;
    if (!skip_value(s_, p, end, err)) return event_error(index, err.offset, err.what);
    const ChunkResult r = parser_.parse(s_.substr(p, end - p), index);
    if (r.kind != ChunkResult::Kind::Ok) return event_error(index, p + r.offset, r.message);
    p = skip_ws(s_, end);
    if (p >= s_.size()) return error_at(p, "unexpected end of file inside 'traceEvents' (missing ']')");
    if (s_[p] == ']') return error_at(p, "malformed event array");
    if (s_[p] != ',') return error_at(p, "expected ',' or ']' after event " + std::to_string(index) +
                                             " but found " + describe_char(s_, p));
    ++p;
    ++index;
  }
}

}  // namespace

Expected<Trace> read_trace_from_memory(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  if (bytes.empty()) return Error{name + ": file is empty"};
  Expected<InputBytes> input = InputBytes::from_memory(bytes, name, options);
  if (!input) return input.error();
  return FileReader(*input, name, options).run();
}

Expected<Trace> read_trace(const std::string& path, const ReadOptions& options) {
  Expected<InputBytes> input = InputBytes::load(path, options);
  if (!input) return input.error();
  return FileReader(*input, path, options).run();
}

}  // namespace gtv::io
