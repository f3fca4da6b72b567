#pragma once
// A read-only SQLite connection to a database nobody vouches for: opened without write access, with SQLite's
// defensive mode on, views and triggers switched off, untrusted schema objects refused, and every string or blob
// bounded by the reader's value limit. Errors are one line that names the file.
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "gtv/base/expected.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gtv::io {

class SqliteDatabase;

// One prepared query; rows are read with step() and the column getters.
class SqliteStatement {
 public:
  SqliteStatement(SqliteDatabase& db, sqlite3_stmt* statement) : db_(&db), statement_(statement) {}
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // True when a row is ready, false after the last one; `what` names the query in errors ("table StringIds").
  [[nodiscard]] Expected<bool> step(std::string_view what);
  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] std::int64_t int64(int column) const;     // a NULL or text column reads as 0
  [[nodiscard]] std::string_view text(int column) const;  // valid until the next step()
  void bind_text(int index, std::string_view text);       // index counts from 1, as in SQLite
  // For statements with one parameter: rebinds it and starts over.
  void restart_with(std::int64_t parameter);

 private:
  SqliteDatabase* db_;
  sqlite3_stmt* statement_;
};

class SqliteDatabase {
 public:
  // Opens the file at path read-only and immutable (nothing is created, locked or written beside it, a -journal
  // or -wal file beside it is ignored); SQLite reads the pages it needs, not the whole file.
  // name (default: path) is used in messages.
  [[nodiscard]] static Expected<SqliteDatabase> open_file(const std::string& path, std::uint64_t max_value_bytes,
                                                          const std::string& name = {});
  // Uses bytes in place (read-only): they must outlive the database. name is used in messages.
  [[nodiscard]] static Expected<SqliteDatabase> open_bytes(std::string_view bytes, const std::string& name,
                                                           std::uint64_t max_value_bytes);
  SqliteDatabase(SqliteDatabase&& other) noexcept;
  SqliteDatabase& operator=(SqliteDatabase&& other) noexcept;
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;
  ~SqliteDatabase();

  // The ordinary tables (views and virtual tables are not listed, so nothing but stored rows is ever read).
  [[nodiscard]] Expected<std::set<std::string>> tables();
  // The names, in lower case (SQLite's names ignore case), of the views and virtual tables.
  [[nodiscard]] Expected<std::set<std::string>> views_and_virtual_tables();
  // The columns of table; an error when one is generated (its value would be computed by the file's expression).
  [[nodiscard]] Expected<std::set<std::string>> columns(const std::string& table);
  [[nodiscard]] Expected<SqliteStatement> prepare(const std::string& sql, std::string_view what);

  // Called every few thousand SQLite steps while a query runs; returning false interrupts the query, which then
  // fails with "reading cancelled".
  void set_progress(std::function<bool()> progress);

  // "<name>: <what>: <SQLite's message>" for the last error (or the one-line messages for a value over the
  // limit and for a cancelled read).
  [[nodiscard]] Error error(int code, std::string_view what) const;
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  struct Progress {
    std::function<bool()> report;
    bool cancelled = false;
  };
  SqliteDatabase(sqlite3* db, std::string name, std::uint64_t max_value_bytes);
  static Expected<SqliteDatabase> configure(sqlite3* db, std::string name, std::uint64_t max_value_bytes);
  static int on_progress(void* progress);

  sqlite3* db_ = nullptr;
  std::string name_;
  std::uint64_t max_value_bytes_ = 0;
  std::unique_ptr<Progress> progress_;  // on the heap: SQLite keeps its address while the database moves
};

}  // namespace gtv::io
