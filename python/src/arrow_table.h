#pragma once
// A small columnar table (int64, float64, bool and UTF-8 string columns, each nullable) and its export through the
// Arrow C data interface and C stream interface (https://arrow.apache.org/docs/format/CDataInterface.html and
// CStreamInterface.html): the structs below are the ones that specification defines, so any Arrow implementation
// (pyarrow, polars, DuckDB, nanoarrow) reads the table without this module linking an Arrow library.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

extern "C" {
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};
#endif
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};
#endif
}

namespace gtv::python {

enum class ColumnType : std::uint8_t { Int64, Float64, Bool, Utf8 };

struct Column {
  std::string name;
  ColumnType type = ColumnType::Int64;
  std::vector<std::int64_t> ints;  // Int64 and Bool (0/1)
  std::vector<double> doubles;
  std::vector<std::string> strings;
  std::vector<bool> valid;  // one per row; false: null
  [[nodiscard]] std::size_t size() const { return valid.size(); }
};

// Columns of equal length, built row by row: add_column for each column, then per row one push per column.
class Table {
 public:
  std::size_t add_column(std::string name, ColumnType type);
  void push_int(std::size_t column, std::int64_t value);
  void push_double(std::size_t column, double value);
  void push_bool(std::size_t column, bool value);
  void push_string(std::size_t column, std::string_view value);
  void push_null(std::size_t column);
  // An int64 that is null when it equals `none` (-1 for "no device", "no sequence number").
  void push_int_or_null(std::size_t column, std::int64_t value, std::int64_t none);

  [[nodiscard]] const std::vector<Column>& columns() const { return columns_; }
  [[nodiscard]] std::size_t row_count() const { return columns_.empty() ? 0 : columns_.front().size(); }

 private:
  std::vector<Column> columns_;
};

// The table's schema (a struct of its columns, each nullable) and its rows as one struct array; `out` is filled
// and owns its memory until its release callback is called.
void export_schema(const Table& table, ArrowSchema* out);
void export_array(const std::shared_ptr<const Table>& table, ArrowArray* out);
// A stream of one record batch holding every row (none when the table is empty).
void export_stream(std::shared_ptr<const Table> table, ArrowArrayStream* out);

}  // namespace gtv::python
