#include "nsys/sqlite_database.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

namespace gtv::io {
namespace {

// SQLite calls the progress callback after this many virtual machine steps: often enough to cancel at once,
// rarely enough to cost nothing.
constexpr int kProgressSteps = 10000;

// SQLite's message, which may quote bytes of a corrupt schema, as one line of printable ASCII: other bytes
// (line breaks, terminal escapes, invalid UTF-8) are written as \xNN.
std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

// A file name as an SQLite URI that names exactly that file: every byte outside a few safe ones is %-escaped (so
// '?', '#', '%' and a "file:" inside the name are just bytes of the name), and "immutable=1" tells SQLite the file
// never changes: it takes no locks, never looks for or creates a -journal, -wal or -shm file beside it, and reads a
// WAL-mode database from its main file alone.
std::string immutable_uri(const std::string& path) {
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(path, ec).string();
  if (ec) absolute = path;
  while (absolute.size() > 1 && absolute[0] == '/' && absolute[1] == '/') absolute.erase(0, 1);  // no authority
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (const char c : absolute) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '/' || c == '.' || c == '_' || c == '-') {
      uri += c;
    } else {
      uri += '%';
      uri += kHex[byte >> 4];
      uri += kHex[byte & 15];
    }
  }
  return uri + "?mode=ro&immutable=1";
}

// Lengths and sizes gtv's queries never come near; a crafted file cannot make SQLite build larger ones.
void set_limits(sqlite3* db, std::uint64_t max_value_bytes) {
  const int value_limit = static_cast<int>(std::min<std::uint64_t>(max_value_bytes, INT_MAX));
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, value_limit);  // one string, blob or row: bounded like one JSON value
  sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);  // the schema's CREATE statements are parsed too
  sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 2000);
  sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100);
  sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 8);
  sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 100000);
  sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 8);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100);
  sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, 8);
  sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
  sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
}

std::string size_text(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), statement_(std::exchange(other.statement_, nullptr)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(statement_);
    db_ = other.db_;
    statement_ = std::exchange(other.statement_, nullptr);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

Expected<bool> SqliteStatement::step(std::string_view what) {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->error(rc, what);
}

bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

std::int64_t SqliteStatement::int64(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_INTEGER ? sqlite3_column_int64(statement_, column) : 0;
}

std::string_view SqliteStatement::text(int column) const {
  const unsigned char* text = sqlite3_column_text(statement_, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(sqlite3_column_bytes(statement_, column))};
}

void SqliteStatement::bind_text(int index, std::string_view text) {
  sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::restart_with(std::int64_t parameter) {
  sqlite3_reset(statement_);
  sqlite3_bind_int64(statement_, 1, parameter);
}

SqliteDatabase::SqliteDatabase(sqlite3* db, std::string name, std::uint64_t max_value_bytes)
    : db_(db), name_(std::move(name)), max_value_bytes_(max_value_bytes), progress_(std::make_unique<Progress>()) {}

SqliteDatabase::SqliteDatabase(SqliteDatabase&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      name_(std::move(other.name_)),
      max_value_bytes_(other.max_value_bytes_),
      progress_(std::move(other.progress_)) {}

SqliteDatabase& SqliteDatabase::operator=(SqliteDatabase&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    name_ = std::move(other.name_);
    max_value_bytes_ = other.max_value_bytes_;
    progress_ = std::move(other.progress_);
  }
  return *this;
}

SqliteDatabase::~SqliteDatabase() { sqlite3_close_v2(db_); }

Expected<SqliteDatabase> SqliteDatabase::configure(sqlite3* raw, std::string name, std::uint64_t max_value_bytes) {
  SqliteDatabase db(raw, std::move(name), max_value_bytes);
  // The file is data, not code: no triggers, views or schema functions run, and SQLite refuses what would let a
  // crafted file corrupt memory through writes to its internal tables.
  sqlite3_db_config(raw, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(raw, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(raw, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(raw, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
  sqlite3_db_config(raw, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  set_limits(raw, max_value_bytes);
  // No memory mapping (a file that shrinks while it is read gives an error, not SIGBUS); extra checks of every
  // b-tree page against corruption.
  for (const char* pragma : {"PRAGMA mmap_size=0", "PRAGMA cell_size_check=ON"}) {
    if (const int rc = sqlite3_exec(raw, pragma, nullptr, nullptr, nullptr); rc != SQLITE_OK)
      return db.error(rc, "the connection settings");
  }
  sqlite3_progress_handler(raw, kProgressSteps, &SqliteDatabase::on_progress, db.progress_.get());
  return db;
}

Expected<SqliteDatabase> SqliteDatabase::open_file(const std::string& path, std::uint64_t max_value_bytes,
                                                   const std::string& name) {
  const std::string& shown = name.empty() ? path : name;
  sqlite3* raw = nullptr;
  const std::string uri = immutable_uri(path);
  const int rc = sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    sqlite3_close_v2(raw);
    return Error{shown + ": SQLite cannot open the file: " + printable(message)};
  }
  return configure(raw, shown, max_value_bytes);
}

Expected<SqliteDatabase> SqliteDatabase::open_bytes(std::string_view bytes, const std::string& name,
                                                    std::uint64_t max_value_bytes) {
  sqlite3* raw = nullptr;
  if (const int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE, nullptr); rc != SQLITE_OK) {
    sqlite3_close_v2(raw);
    return Error{name + ": SQLite cannot open an in-memory database: " + sqlite3_errstr(rc)};
  }
  // READONLY: SQLite never writes to the buffer, so the caller's bytes can be used in place. A WAL-mode database
  // (header bytes 18 and 19 are 2) cannot be opened in memory: its main file, all a file opened immutable reads
  // too, is read from a copy whose header says rollback journal (1).
  auto* data = reinterpret_cast<unsigned char*>(const_cast<char*>(bytes.data()));
  const auto size = static_cast<sqlite3_int64>(bytes.size());
  unsigned flags = SQLITE_DESERIALIZE_READONLY;
  constexpr std::size_t kVersionBytes = 20;
  if (bytes.size() >= kVersionBytes && (bytes[18] == 2 || bytes[19] == 2)) {
    data = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size()));
    if (data == nullptr) {
      sqlite3_close_v2(raw);
      return Error{name + ": out of memory for a copy of the WAL-mode database"};
    }
    std::memcpy(data, bytes.data(), bytes.size());
    data[18] = 1;
    data[19] = 1;
    flags |= SQLITE_DESERIALIZE_FREEONCLOSE;
  }
  if (const int rc = sqlite3_deserialize(raw, "main", data, size, size, flags); rc != SQLITE_OK) {
    const std::string message = printable(sqlite3_errmsg(raw));
    sqlite3_close_v2(raw);
    return Error{name + ": SQLite cannot read the data: " + message};
  }
  return configure(raw, name, max_value_bytes);
}

int SqliteDatabase::on_progress(void* progress) {
  auto* p = static_cast<Progress*>(progress);
  if (p->report && !p->report()) p->cancelled = true;
  return p->cancelled ? 1 : 0;
}

void SqliteDatabase::set_progress(std::function<bool()> progress) { progress_->report = std::move(progress); }

Error SqliteDatabase::error(int code, std::string_view what) const {
  if (progress_ != nullptr && progress_->cancelled) return Error{name_ + ": reading cancelled"};
  if ((code & 0xff) == SQLITE_TOOBIG)
    return Error{name_ + ": " + std::string(what) + ": a value is larger than " + size_text(max_value_bytes_) +
                 " (limit: see GTV_MAX_VALUE_BYTES)"};
  const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
  return Error{name_ + ": SQLite error reading " + std::string(what) + ": " + printable(message)};
}

Expected<SqliteStatement> SqliteDatabase::prepare(const std::string& sql, std::string_view what) {
  sqlite3_stmt* statement = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size() + 1), &statement, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(statement);
    return error(rc, what);
  }
  return SqliteStatement(*this, statement);
}

Expected<std::set<std::string>> SqliteDatabase::tables() {
  // sqlite_master keeps "CREATE TABLE" in upper case at the start of every ordinary table's SQL.
  Expected<SqliteStatement> query =
      prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE TABLE %'", "the table list");
  if (!query) return query.error();
  std::set<std::string> names;
  while (true) {
    Expected<bool> row = query->step("the table list");
    if (!row) return row.error();
    if (!*row) return names;
    names.emplace(query->text(0));
  }
}

Expected<std::set<std::string>> SqliteDatabase::views_and_virtual_tables() {
  Expected<SqliteStatement> query = prepare(
      "SELECT lower(name) FROM sqlite_master WHERE type = 'view' OR (type = 'table' AND sql NOT LIKE 'CREATE TABLE %')",
      "the table list");
  if (!query) return query.error();
  std::set<std::string> names;
  while (true) {
    Expected<bool> row = query->step("the table list");
    if (!row) return row.error();
    if (!*row) return names;
    names.emplace(query->text(0));
  }
}

Expected<std::set<std::string>> SqliteDatabase::columns(const std::string& table) {
  const std::string what = "the columns of " + table;
  // table_xinfo also lists generated columns (hidden 2: computed on every read, 3: stored); hidden 1 are the
  // columns of virtual tables.
  Expected<SqliteStatement> query = prepare("SELECT name, hidden FROM pragma_table_xinfo(?)", what);
  if (!query) return query.error();
  query->bind_text(1, table);
  std::set<std::string> names;
  while (true) {
    Expected<bool> row = query->step(what);
    if (!row) return row.error();
    if (!*row) return names;
    if (query->int64(1) != 0)
      return Error{name_ + ": table " + table + " has a generated column '" + printable(query->text(0)) +
                   "': gtv reads only stored values, it runs no expression from the file"};
    names.emplace(query->text(0));
  }
}

}  // namespace gtv::io
