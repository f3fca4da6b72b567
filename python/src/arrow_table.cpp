#include "arrow_table.h"

#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <stdexcept>
#include <utility>

namespace gtv::python {
namespace {

// A length-0 buffer still gets a valid, aligned address: some importers reject null value buffers.
alignas(64) const std::uint8_t kEmptyBuffer[64] = {};

const char* format_of(ColumnType type) {
  switch (type) {
    case ColumnType::Int64:
      return "l";
    case ColumnType::Float64:
      return "g";
    case ColumnType::Bool:
      return "b";
    case ColumnType::Utf8:
      return "u";
  }
  return "l";
}

// Bit i of the result is bits[i] (Arrow's least-significant-bit order).
std::vector<std::uint8_t> pack_bits(const std::vector<bool>& bits) {
  std::vector<std::uint8_t> packed((bits.size() + 7) / 8, 0);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i]) packed[i / 8] = static_cast<std::uint8_t>(packed[i / 8] | (1U << (i % 8)));
  return packed;
}

// A utf8 column's offsets are int32.
constexpr std::size_t kMaxUtf8Bytes = std::numeric_limits<std::int32_t>::max();

const void* address_of(const void* data, std::size_t size) { return size == 0 ? kEmptyBuffer : data; }

// ---- schemas

struct SchemaPrivate {
  std::string format;
  std::string name;
  std::vector<ArrowSchema> child_structs;
  std::vector<ArrowSchema*> children;
};

void release_schema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  for (std::int64_t i = 0; i < schema->n_children; ++i) {
    ArrowSchema* child = schema->children[i];
    if (child->release != nullptr) child->release(child);
  }
  delete static_cast<SchemaPrivate*>(schema->private_data);
  schema->release = nullptr;
}

void fill_schema(ArrowSchema* out, std::string format, std::string name, std::int64_t flags) {
  auto* p = new SchemaPrivate{std::move(format), std::move(name), {}, {}};
  *out = ArrowSchema{p->format.c_str(), p->name.c_str(), nullptr, flags, 0, nullptr, nullptr, &release_schema, p};
}

// ---- arrays

struct ArrayPrivate {
  std::shared_ptr<const Table> table;  // keeps the int64 and float64 values the buffers point into
  std::vector<std::uint8_t> validity;
  std::vector<std::uint8_t> bits;  // bool values
  std::vector<std::int32_t> offsets;
  std::string chars;
  std::vector<const void*> buffers;
  std::vector<ArrowArray> child_structs;
  std::vector<ArrowArray*> children;
};

void release_array(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  for (std::int64_t i = 0; i < array->n_children; ++i) {
    ArrowArray* child = array->children[i];
    if (child->release != nullptr) child->release(child);
  }
  delete static_cast<ArrayPrivate*>(array->private_data);
  array->release = nullptr;
}

void fill_column_array(const std::shared_ptr<const Table>& table, const Column& column, ArrowArray* out) {
  auto owned = std::make_unique<ArrayPrivate>();
  ArrayPrivate* p = owned.get();
  p->table = table;
  const std::size_t rows = column.size();
  std::int64_t nulls = 0;
  for (const bool v : column.valid) nulls += v ? 0 : 1;
  const void* validity = nullptr;
  if (nulls > 0) {
    p->validity = pack_bits(column.valid);
    validity = p->validity.data();
  }
  p->buffers.push_back(validity);
  switch (column.type) {
    case ColumnType::Int64:
      p->buffers.push_back(address_of(column.ints.data(), column.ints.size()));
      break;
    case ColumnType::Float64:
      p->buffers.push_back(address_of(column.doubles.data(), column.doubles.size()));
      break;
    case ColumnType::Bool: {
      std::vector<bool> values(rows);
      for (std::size_t i = 0; i < rows; ++i) values[i] = column.ints[i] != 0;
      p->bits = pack_bits(values);
      p->buffers.push_back(address_of(p->bits.data(), p->bits.size()));
      break;
    }
    case ColumnType::Utf8: {
      p->offsets.reserve(rows + 1);
      p->offsets.push_back(0);
      for (const std::string& s : column.strings) {
        if (s.size() > kMaxUtf8Bytes - p->chars.size())
          throw std::length_error("column '" + column.name +
                                  "' holds more than 2 GiB of text, the most a utf8 column can");
        p->chars += s;
        p->offsets.push_back(static_cast<std::int32_t>(p->chars.size()));
      }
      p->buffers.push_back(p->offsets.data());
      p->buffers.push_back(address_of(p->chars.data(), p->chars.size()));
      break;
    }
  }
  *out = ArrowArray{static_cast<std::int64_t>(rows),
                    nulls,
                    0,
                    static_cast<std::int64_t>(p->buffers.size()),
                    0,
                    p->buffers.data(),
                    nullptr,
                    nullptr,
                    &release_array,
                    owned.release()};
}

// ---- the stream

struct StreamPrivate {
  std::shared_ptr<const Table> table;
  bool sent = false;
  std::string error;
};

int stream_get_schema(ArrowArrayStream* stream, ArrowSchema* out) {
  auto* p = static_cast<StreamPrivate*>(stream->private_data);
  try {
    export_schema(*p->table, out);
  } catch (const std::exception& e) {
    p->error = e.what();
    return ENOMEM;
  }
  return 0;
}

int stream_get_next(ArrowArrayStream* stream, ArrowArray* out) {
  auto* p = static_cast<StreamPrivate*>(stream->private_data);
  if (p->sent || p->table->row_count() == 0) {
    std::memset(out, 0, sizeof(*out));  // release == nullptr: the end of the stream
    return 0;
  }
  try {
    export_array(p->table, out);
  } catch (const std::exception& e) {
    p->error = e.what();
    return ENOMEM;
  }
  p->sent = true;
  return 0;
}

const char* stream_get_last_error(ArrowArrayStream* stream) {
  auto* p = static_cast<StreamPrivate*>(stream->private_data);
  return p->error.empty() ? nullptr : p->error.c_str();
}

void stream_release(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete static_cast<StreamPrivate*>(stream->private_data);
  stream->release = nullptr;
}

}  // namespace

std::size_t Table::add_column(std::string name, ColumnType type) {
  columns_.push_back(Column{std::move(name), type, {}, {}, {}, {}});
  return columns_.size() - 1;
}

void Table::push_int(std::size_t column, std::int64_t value) {
  columns_[column].ints.push_back(value);
  columns_[column].valid.push_back(true);
}

void Table::push_double(std::size_t column, double value) {
  columns_[column].doubles.push_back(value);
  columns_[column].valid.push_back(true);
}

void Table::push_bool(std::size_t column, bool value) {
  columns_[column].ints.push_back(value ? 1 : 0);
  columns_[column].valid.push_back(true);
}

void Table::push_string(std::size_t column, std::string_view value) {
  columns_[column].strings.emplace_back(value);
  columns_[column].valid.push_back(true);
}

void Table::push_null(std::size_t column) {
  Column& c = columns_[column];
  switch (c.type) {
    case ColumnType::Int64:
    case ColumnType::Bool:
      c.ints.push_back(0);
      break;
    case ColumnType::Float64:
      c.doubles.push_back(0);
      break;
    case ColumnType::Utf8:
      c.strings.emplace_back();
      break;
  }
  c.valid.push_back(false);
}

void Table::push_int_or_null(std::size_t column, std::int64_t value, std::int64_t none) {
  if (value == none) {
    push_null(column);
  } else {
    push_int(column, value);
  }
}

void export_schema(const Table& table, ArrowSchema* out) {
  fill_schema(out, "+s", "", 0);
  auto* p = static_cast<SchemaPrivate*>(out->private_data);
  const std::vector<Column>& columns = table.columns();
  p->child_structs.resize(columns.size());
  for (std::size_t i = 0; i < columns.size(); ++i) {
    fill_schema(&p->child_structs[i], format_of(columns[i].type), columns[i].name, ARROW_FLAG_NULLABLE);
    p->children.push_back(&p->child_structs[i]);
  }
  out->n_children = static_cast<std::int64_t>(columns.size());
  out->children = p->children.data();
}

void export_array(const std::shared_ptr<const Table>& table, ArrowArray* out) {
  auto owned = std::make_unique<ArrayPrivate>();
  ArrayPrivate* p = owned.get();
  p->table = table;
  p->buffers.push_back(nullptr);  // a struct array's validity: every row is there
  const std::vector<Column>& columns = table->columns();
  p->child_structs.resize(columns.size());  // zeroed: release == nullptr until filled
  try {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      fill_column_array(table, columns[i], &p->child_structs[i]);
      p->children.push_back(&p->child_structs[i]);
    }
  } catch (...) {
    for (ArrowArray& child : p->child_structs)
      if (child.release != nullptr) child.release(&child);
    throw;
  }
  *out = ArrowArray{static_cast<std::int64_t>(table->row_count()),
                    0,
                    0,
                    1,
                    static_cast<std::int64_t>(columns.size()),
                    p->buffers.data(),
                    p->children.data(),
                    nullptr,
                    &release_array,
                    owned.release()};
}

void export_stream(std::shared_ptr<const Table> table, ArrowArrayStream* out) {
  auto* p = new StreamPrivate{std::move(table), false, {}};
  *out = ArrowArrayStream{&stream_get_schema, &stream_get_next, &stream_get_last_error, &stream_release, p};
}

}  // namespace gtv::python
