// The JSON reader: the top level of the file is walked with small scalar helpers; the event array is cut into chunks
// of about 1 MiB at element boundaries and each chunk is parsed with simdjson On Demand. The text is read as a
// stream (InputBytes), so memory stays bounded by the chunk size and the limits on one event and one top-level
// value (not by the file size, inflated or not). On a
// multi-core machine the chunks are parsed ahead on worker threads (ChunkPrefetcher) while this thread assembles
// the model from them in file order.
#include "json/json_reader.h"

#include <algorithm>
#include <memory>
#include <string>

#include "input/read_limits.h"
#include "json/chunk_parser.h"
#include "json/chunk_prefetcher.h"
#include "json/json_scan.h"
#include "json/trace_assembler.h"
#include "trace_format.h"

namespace gtv::io {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;  // default of ReadOptions::chunk_bytes
// Smaller chunks would only multiply the work per element (a chunk holds at least one element anyway).
constexpr std::size_t kMinChunkBytes = 16;
constexpr int kMaxCutTries = 8;
// Each start of a chain of prefetched chunks may waste the chunks parsed ahead: on input where its cuts keep
// failing, the rest is read sequentially.
constexpr int kMaxPrefetchStarts = 16;
// Chunks parsed ahead are half the size: each worker slot holds about five times its chunk (copy, simdjson's
// indexes and strings, events), and half keeps peak memory at the sequential reader's level at no cost in speed.
// One event may not exceed this: it bounds the parser's memory (about six times the chunk) on hostile input.
constexpr std::size_t kMaxEventBytes = std::size_t{64} << 20;

// Text read after a chunk's window, to see what follows a cut.
constexpr std::size_t kLookaheadBytes = std::size_t{4} << 10;
// The first read of a top-level value; it doubles until the value is complete (or over its limit).
constexpr std::size_t kFirstValueWindowBytes = std::size_t{64} << 10;

std::string size_text(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// Positions are offsets in the whole JSON text; the input holds a window of it (see InputBytes). The reader
// drops the text before its position only where nothing before it is needed again: between top-level values and
// between chunks of events.
class FileReader {
 public:
  FileReader(InputBytes& input, std::string name, const ReadOptions& options)
      : input_(input),
        name_(std::move(name)),
        options_(options),
        text_bytes_(input.size_hint()),
        chunk_bytes_(options.chunk_bytes == 0 ? kChunkBytes : std::max(options.chunk_bytes, kMinChunkBytes)),
        assembler_(name_, text_bytes_) {}

  Expected<Trace> run();

 private:
  Status read_top_level();
  Status read_object(std::size_t pos);
  Status read_events(std::size_t& pos, bool bare);
  Status after_chunk(std::size_t& pos, bool bare, bool& done);
  [[nodiscard]] unsigned prefetch_workers(std::size_t pos);
  Status take_prefetched(ChunkPrefetcher& prefetch, std::size_t& pos, bool& taken, bool& continues);
  Status parse_next_chunk(std::size_t& pos, bool bare);
  bool parse_chunk(std::size_t pos, std::size_t cut, Status& status);
  std::size_t exact_cut(std::size_t pos, std::size_t limit) const;
  [[nodiscard]] std::size_t retry_limit(std::size_t pos, std::size_t failed_cut) const;
  Status final_error(std::size_t pos);
  Status value_end(std::size_t pos, const std::string& what, std::size_t& end);
  Status skip_unused(std::size_t pos, std::size_t& end);
  Status report_progress(std::size_t pos);

  [[nodiscard]] std::string_view text() const { return input_.view(); }
  [[nodiscard]] std::size_t rel(std::size_t pos) const { return pos - input_.begin(); }
  std::size_t ws(std::size_t pos);  // the next non-blank at or after pos, or the end of the text
  int at(std::size_t pos);          // the byte at pos, or -1 at the end of the text
  std::string describe(std::size_t pos) {
    input_.fill_to(pos + 1);
    return describe_char(text(), rel(pos));
  }
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
  std::string name_;
  const ReadOptions& options_;
  std::size_t text_bytes_;  // the size of the text when known in advance, else 0
  std::size_t chunk_bytes_;
  TraceAssembler assembler_;
  ChunkParser parser_;
  std::uint64_t index_ = 0;  // index of the next element of traceEvents
  std::uint64_t chunks_ = 0;
  std::uint64_t chunks_ahead_ = 0;
  unsigned workers_ = 0;
  double last_progress_ = 0.0;
  bool seen_events_ = false;
};

std::size_t FileReader::ws(std::size_t pos) {
  while (true) {
    input_.fill_to(pos + 1);
    const std::size_t r = skip_ws(text(), rel(pos));
    pos = input_.begin() + r;
    if (r < text().size() || input_.at_eof()) return pos;
    input_.drop_before(pos);  // a run of blanks: memory stays bounded however long it is
  }
}

int FileReader::at(std::size_t pos) {
  input_.fill_to(pos + 1);
  return pos < input_.end() ? static_cast<unsigned char>(text()[rel(pos)]) : -1;
}

Expected<Trace> FileReader::run() {
  Status status = read_top_level();
  // An input error (I/O, gzip, a file that shrank) cut the text short: it, not the JSON error it caused, is news.
  if (input_.error()) return *input_.error();
  if (!status) return status.error();
  if (!seen_events_) return Error{name_ + ": no 'traceEvents' array in the JSON object"};
  ReadStats* stats = options_.stats;
  if (stats != nullptr) {
    stats->array_elements = index_;
    stats->json_bytes = input_.end();
    stats->gzip = input_.was_gzip();
    stats->chunks = chunks_;
    stats->chunks_parsed_ahead = chunks_ahead_;
    stats->prefetch_workers = workers_;
    stats->peak_buffered_bytes = input_.peak_buffered_bytes();
  }
  return assembler_.finish(stats);
}

Status FileReader::read_top_level() {
  std::size_t pos = 0;
  input_.fill_to(3);
  if (text().substr(0, 3) == "\xEF\xBB\xBF") pos = 3;  // UTF-8 byte order mark
  pos = ws(pos);
  const int c = at(pos);
  if (c == -1) return Error{name_ + ": file is empty (no JSON value)"};
  if (c == '{') return read_object(pos);
  if (c != '[') return error_at(pos, unknown_format_message(describe(pos)));
  ++pos;
  seen_events_ = true;
  if (Status st = read_events(pos, true); !st) return st;
  pos = ws(pos);
  if (at(pos) != -1) return error_at(pos, "unexpected data after the event array");
  return ok_status();
}

// The end of the value at pos (a top-level value or key), reading more until it is complete; bounded by
// max_value_bytes so that no value other than the event array (read in chunks) can take unbounded memory.
Status FileReader::value_end(std::size_t pos, const std::string& what, std::size_t& end) {
  const std::uint64_t limit = max_value_bytes(options_);
  std::size_t want = kFirstValueWindowBytes;
  while (true) {
    input_.fill_to(pos + want);
    const std::string_view s = text();
    std::size_t e = 0;
    ScanError err;
    const bool ok = skip_value(s, rel(pos), e, err);
    // A scalar that reaches the end of the window may go on after it.
    const bool complete = input_.at_eof() || (ok ? e < s.size() : !err.at_end);
    if (complete && !ok) return error_at(input_.begin() + err.offset, err.what);
    const std::size_t size = complete ? input_.begin() + e - pos : input_.end() - pos;
    if (size > limit)
      return error_at(pos, what + " is larger than " + size_text(limit) + " (limit: see GTV_MAX_VALUE_BYTES)");
    if (complete) {
      end = input_.begin() + e;
      return ok_status();
    }
    want = std::max(want, size) * 2;
  }
}

// Skips a top-level value we do not use, of any size, keeping only the text read last.
Status FileReader::skip_unused(std::size_t pos, std::size_t& end) {
  ValueSkipper skipper;
  ScanError err;
  while (true) {
    input_.fill_to(pos + 1);
    switch (skipper.scan(text(), input_.begin(), rel(pos), end, err)) {
      case ValueSkipper::Result::Done:
        return ok_status();
      case ValueSkipper::Result::Error:
        return error_at(err.offset, err.what);
      case ValueSkipper::Result::More:
        break;
    }
    pos = input_.end();
    if (input_.at_eof()) break;
    input_.drop_before(pos);
  }
  if (skipper.finish(pos, end, err) == ValueSkipper::Result::Done) return ok_status();
  return error_at(err.offset, err.what);
}

Status FileReader::read_object(std::size_t pos) {
  pos = ws(pos + 1);
  bool open = at(pos) != '}';
  if (!open) ++pos;
  while (open) {
    input_.drop_before(pos);
    if (at(pos) != '"') return error_at(pos, "expected a key but found " + describe(pos));
    std::size_t key_end = 0;
    if (Status st = value_end(pos, "a key", key_end); !st) return st;
    const std::string key(text().substr(rel(pos) + 1, key_end - pos - 2));
    pos = ws(key_end);
    if (at(pos) != ':') return error_at(pos, "expected ':' but found " + describe(pos));
    pos = ws(pos + 1);
    if (key == "traceEvents") {
      if (at(pos) != '[') return error_at(pos, "'traceEvents' is not an array");
      ++pos;
      if (Status st = read_events(pos, false); !st) return st;
      seen_events_ = true;
    } else {
      std::size_t end = 0;
      if (!is_interesting_top_level_key(key)) {
        if (Status st = skip_unused(pos, end); !st) return st;
      } else {
        if (Status st = value_end(pos, "top-level value '" + key + "'", end); !st) return st;
        if (Status st = parse_top_level_value(key, text().substr(rel(pos), end - pos), assembler_.header()); !st)
          return error_at(pos, st.error().message);
      }
      pos = end;
    }
    pos = ws(pos);
    const int c = at(pos);
    if (c == ',') {
      pos = ws(pos + 1);
    } else if (c == '}') {
      ++pos;
      open = false;
    } else {
      return error_at(pos, "expected ',' or '}' but found " + describe(pos));
    }
  }
  pos = ws(pos);
  if (at(pos) != -1) return error_at(pos, "unexpected data after the end of the JSON object");
  return ok_status();
}

// Parses [pos, cut) as whole elements. False when the cut was not at an element boundary (syntax error); status
// is set to an error for problems that no other cut can fix.
bool FileReader::parse_chunk(std::size_t pos, std::size_t cut, Status& status) {
  const std::size_t readable_after = input_.end() - cut + input_.readable_after_end();
  const ChunkResult r =
      input_.writable() != nullptr && pos > input_.begin() && ChunkParser::can_parse_in_place(readable_after)
          ? parser_.parse_in_place(input_.writable() + rel(pos), cut - pos, readable_after - 1, index_)
          : parser_.parse(text().substr(rel(pos), cut - pos), index_);
  if (r.kind == ChunkResult::Kind::Syntax) return false;
  if (r.kind == ChunkResult::Kind::Semantic) {
    status = event_error(r.event_index, pos + r.offset, r.message);
    return true;
  }
  status = assembler_.add_chunk(parser_.events(), parser_.counter_values(), pos);
  index_ += parser_.events().size();
  return true;
}

// After the chunk [pos, failed_cut) did not parse: the limit below which to look for the next cut. A cut inside the
// last element the parser began fails in that element again (what precedes it is the same text); a cut right after
// it may parse, and is found when the next chunk starts at that element. So when an element before it parsed, the
// next cut tried is right after that one.
std::size_t FileReader::retry_limit(std::size_t pos, std::size_t failed_cut) const {
  const std::vector<RawEvent>& begun = parser_.events();
  // (An offset of 0 past the first element: the parser could not tell where the element began.)
  if (begun.size() < 2 || begun.back().offset == 0) return failed_cut - 1;
  return std::min(failed_cut - 1, pos + begun.back().offset);
}

// The end of the last whole element that ends at or before limit, found by walking the elements (slow path for
// chunks where the quick search for "}," kept landing inside strings).
std::size_t FileReader::exact_cut(std::size_t pos, std::size_t limit) const {
  const std::string_view s = text();
  std::size_t best = std::string_view::npos;
  std::size_t p = rel(pos);
  while (true) {
    std::size_t end = 0;
    ScanError err;
    if (!skip_value(s, skip_ws(s, p), end, err) || input_.begin() + end > limit) return best;
    best = input_.begin() + end;
    p = skip_ws(s, end);
    if (p >= s.size() || s[p] != ',') return best;
    ++p;
  }
}

unsigned FileReader::prefetch_workers(std::size_t pos) {
  input_.fill_to(pos + 2 * chunk_bytes_);
  const std::size_t ahead = input_.end() - pos;
  const unsigned workers = ChunkPrefetcher::worker_count(input_.at_eof() ? ahead : ahead + chunk_bytes_, chunk_bytes_);
  return options_.max_prefetch_workers == 0 ? workers : std::min(workers, options_.max_prefetch_workers);
}

Status FileReader::read_events(std::size_t& pos, bool bare) {
  // Made at the first chain; its worker threads serve every later chain of this array.
  std::unique_ptr<ChunkPrefetcher> prefetch;
  bool prefetching = false;
  int prefetch_starts = 0;
  while (true) {
    bool taken = false;
    if (prefetching) {
      // The prefetcher owns the input until its chain is stopped: nothing here reads it meanwhile.
      bool continues = false;
      if (Status st = take_prefetched(*prefetch, pos, taken, continues); !st) return st;
      if (taken) {
        ++chunks_;
        ++chunks_ahead_;
        if (Status st = report_progress(pos); !st) return st;
        if (continues) continue;
      }
      prefetch->stop();  // the chain ended, or this chunk is read sequentially, exactly as without prefetching
      prefetching = false;
      input_.seek(pos);  // workers may have read a file without the window
    } else {
      input_.drop_before(pos);
      pos = ws(pos);
      const int c = at(pos);
      if (c == -1) {
        if (bare) return ok_status();  // the array form may omit its closing ']'
        return error_at(pos, "unexpected end of file inside 'traceEvents' (missing ']')");
      }
      if (c == ']') {
        ++pos;
        return ok_status();
      }
      if (prefetch_starts < kMaxPrefetchStarts) {
        // (Re)started after a chunk the workers could not cut cleanly was read sequentially.
        if (const unsigned workers = prefetch_workers(pos); workers > 0) {
          if (prefetch == nullptr) {
            prefetch = std::make_unique<ChunkPrefetcher>(input_, bare, chunk_bytes_ / 2, workers);
            workers_ = std::max(workers_, workers);
          }
          prefetch->start(pos);
          prefetching = true;
          ++prefetch_starts;
          continue;
        }
      }
    }
    if (!taken) {
      if (Status st = parse_next_chunk(pos, bare); !st) return st;
      ++chunks_;
      if (Status st = report_progress(pos); !st) return st;
    }
    bool done = false;
    if (Status st = after_chunk(pos, bare, done); !st || done) return st;
  }
}

// What follows a chunk: ',' goes on, ']' ends the array (so does the end of the data in the bare form).
Status FileReader::after_chunk(std::size_t& pos, bool bare, bool& done) {
  pos = ws(pos);
  const int c = at(pos);
  if (c == ',') {
    ++pos;
  } else if (c == ']') {
    ++pos;
    done = true;
  } else if (!(c == -1 && bare)) {
    return error_at(pos, "expected ',' or ']' in 'traceEvents' but found " + describe(pos));
  }
  return ok_status();
}

Status FileReader::report_progress(std::size_t pos) {
  if (options_.progress == nullptr) return ok_status();
  // The parsed share of a plain text of known size; else the share of the compressed input inflated so far, times
  // the parsed share of what was inflated (the window reads ahead of the parser).
  double fraction =
      text_bytes_ > 0 ? static_cast<double>(pos) / static_cast<double>(text_bytes_)
                      : input_.progress() * static_cast<double>(pos) / static_cast<double>(std::max(pos, input_.end()));
  fraction = std::max(fraction, last_progress_);  // never backwards
  last_progress_ = fraction;
  if (!options_.progress(options_.progress_context, fraction)) return Error{name_ + ": reading cancelled"};
  return ok_status();
}

// Takes the chunk at pos from the prefetcher when it parsed cleanly (taken); otherwise leaves pos alone.
Status FileReader::take_prefetched(ChunkPrefetcher& prefetch, std::size_t& pos, bool& taken, bool& continues) {
  PrefetchedChunk* chunk = prefetch.next();
  taken = chunk != nullptr && chunk->ok && chunk->start == pos;
  if (!taken) return ok_status();
  chunk->parser.set_first_index(index_);
  Status status = assembler_.add_chunk(chunk->parser.events(), chunk->parser.counter_values(), pos);
  index_ += chunk->parser.events().size();
  continues = chunk->continues;
  pos = continues ? chunk->next : chunk->cut;
  prefetch.release();
  return status;
}

// Parses the chunk that starts at pos, trying cuts and growing the window as needed; pos moves past it.
Status FileReader::parse_next_chunk(std::size_t& pos, bool bare) {
  Status status = ok_status();
  std::size_t window = chunk_bytes_;
  while (true) {
    input_.fill_to(pos + window + kLookaheadBytes);
    const std::size_t base = input_.begin();
    const std::size_t window_end = std::min(input_.end(), pos + window);
    // A '}' followed by blanks up to the end of what was read may end an element: parsing the chunk decides.
    const bool allow_eof = bare || !input_.at_eof();
    const auto cut_before = [&](std::size_t limit) {
      const std::size_t c = previous_cut(text(), pos - base, limit - base, allow_eof);
      return c == std::string_view::npos ? c : base + c;
    };
    std::size_t cut = cut_before(window_end);
    bool parsed = false;
    for (int tries = 1; cut != std::string_view::npos; ++tries) {
      if (parse_chunk(pos, cut, status)) {
        parsed = true;
        break;
      }
      if (tries < kMaxCutTries) {
        cut = cut_before(retry_limit(pos, cut));
      } else {
        cut = tries == kMaxCutTries ? exact_cut(pos, window_end) : std::string_view::npos;
      }
    }
    if (!status) return status;
    if (parsed) {
      pos = cut;
      return ok_status();
    }
    if (window_end == input_.end() && input_.at_eof()) return final_error(pos);
    if (window >= kMaxEventBytes)
      return event_error(index_, pos, "event is larger than " + std::to_string(kMaxEventBytes >> 20) + " MiB (limit)");
    window *= 2;
  }
}

// No chunk boundary worked and the window holds the rest of the text: walk the elements one by one to name the
// first one that is broken.
Status FileReader::final_error(std::size_t pos) {
  const std::string_view s = text();
  const std::size_t base = input_.begin();
  std::uint64_t index = index_;
  std::size_t p = rel(pos);
  while (true) {
    p = skip_ws(s, p);
    std::size_t end = 0;
    ScanError err;
    if (!skip_value(s, p, end, err)) return event_error(index, base + err.offset, err.what);
    const ChunkResult r = parser_.parse(s.substr(p, end - p), index);
    if (r.kind != ChunkResult::Kind::Ok) return event_error(index, base + p + r.offset, r.message);
    p = skip_ws(s, end);
    if (p >= s.size()) return error_at(base + p, "unexpected end of file inside 'traceEvents' (missing ']')");
    if (s[p] == ']') return error_at(base + p, "malformed event array");
    if (s[p] != ',')
      return error_at(base + p,
                      "expected ',' or ']' after event " + std::to_string(index) + " but found " + describe_char(s, p));
    ++p;
    ++index;
  }
}

}  // namespace

Expected<Trace> read_json_trace(InputBytes& input, const std::string& name, const ReadOptions& options) {
  return FileReader(input, name, options).run();
}

}  // namespace gtv::io
