// Hostile SQLite input: truncated and corrupted files, databases that are not nsys exports, schema objects that
// would run code or never end, values over the reader's limits, bad times. Each gives a one-line error that names
// the file (or reads what it can), never a crash or a hang.
#include <gtest/gtest.h>

#include <random>

#include "gtv/io/trace_file.h"
#include "nsys/sqlite_spill.h"
#include "sqlite_test_util.h"
#include "test_util.h"

namespace gtv::io {
namespace {

void expect_one_line(const Expected<Trace>& t, const std::string& name, std::string_view part) {
  ASSERT_FALSE(t.ok());
  const std::string& message = t.error().message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind(name + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(part), std::string::npos) << message;
}

std::string fixture() { return test::read_file(test::kNsysFixture); }

TEST(NsysHostile, TruncatedFilesGiveOneLineErrors) {
  const std::string bytes = fixture();
  int errors = 0;
  for (std::size_t keep = 16; keep < bytes.size(); keep += 509) {
    SCOPED_TRACE(keep);
    Expected<Trace> t = read_trace_from_memory(bytes.substr(0, keep), "cut.sqlite");
    if (t.ok()) continue;  // what was cut off held nothing the reader needed
    ++errors;
    EXPECT_EQ(t.error().message.find('\n'), std::string::npos) << t.error().message;
    EXPECT_EQ(t.error().message.rfind("cut.sqlite: ", 0), 0u) << t.error().message;
  }
  EXPECT_GT(errors, 0);
  expect_one_line(read_trace_from_memory(bytes.substr(0, bytes.size() / 2), "half.sqlite"), "half.sqlite",
                  "SQLite error reading");
  // The same from a file, read in place by SQLite.
  const std::string path = test::scratch_dir("nsys_truncated") + "/half.sqlite";
  test::write_file(path, bytes.substr(0, bytes.size() / 2));
  expect_one_line(read_trace(path), path, "SQLite error reading");
}

TEST(NsysHostile, CorruptedBytesNeverCrash) {
  const std::string bytes = fixture();
  std::mt19937 rng(20240607);
  for (int round = 0; round < 300; ++round) {
    std::string damaged = bytes;
    const int flips = 1 + round % 8;
    for (int i = 0; i < flips; ++i) {
      // Past the 16-byte header string, so it stays an SQLite file for the format detection.
      const std::size_t at = 16 + rng() % (damaged.size() - 16);
      damaged[at] = static_cast<char>(rng());
    }
    Expected<Trace> t = read_trace_from_memory(damaged, "damaged.sqlite");
    if (!t.ok()) {
      EXPECT_EQ(t.error().message.find('\n'), std::string::npos) << t.error().message;
      EXPECT_EQ(t.error().message.rfind("damaged.sqlite: ", 0), 0u) << t.error().message;
    }
  }
}

// SQLite quotes a corrupt schema in its messages: what reaches the terminal is printable ASCII.
TEST(NsysHostile, CorruptSchemaTextIsEscapedInTheMessage) {
  const std::string bytes = test::sqlite_changed(
      fixture(),
      "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE ThreadNames (' || "
      "char(27) || '[31m' || char(10) || x'ff' WHERE name = 'ThreadNames';");
  Expected<Trace> t = read_trace_from_memory(bytes, "escape.sqlite");
  expect_one_line(t, "escape.sqlite", R"(\x1b)");
  for (const char c : t.error().message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << t.error().message;
}

TEST(NsysHostile, OtherSqliteDatabasesAreRefused) {
  expect_one_line(
      read_trace_from_memory(test::sqlite_from("CREATE TABLE photos (id INTEGER, path TEXT);"), "album.sqlite"),
      "album.sqlite", "not an Nsight Systems export");
  expect_one_line(
      read_trace_from_memory(test::sqlite_from("CREATE TABLE StringIds (id INTEGER, value TEXT);"), "strings.sqlite"),
      "strings.sqlite", "not an Nsight Systems export");
  const std::string header_only = std::string("SQLite format 3\0", 16) + std::string(84, '\0');
  expect_one_line(read_trace_from_memory(header_only, "header.sqlite"), "header.sqlite", "SQLite");
}

TEST(NsysHostile, MissingRequiredColumnIsNamed) {
  const std::string bytes =
      test::sqlite_changed(fixture(), "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN streamId;");
  expect_one_line(read_trace_from_memory(bytes, "old.sqlite"), "old.sqlite",
                  "table CUPTI_ACTIVITY_KIND_KERNEL has no column 'streamId'");
}

// A view or a virtual table in place of a table could run arbitrary queries (an endless recursive one here):
// only ordinary tables are read, so the kernels below are simply absent.
// A view or virtual table under a name gtv reads would run the file's query (here an endless one) or a module:
// refused, whichever table it replaces.
TEST(NsysHostile, ViewsAndVirtualTablesAreRefused) {
  const std::string bytes = test::sqlite_changed(
      fixture(),
      "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
      "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
      "SELECT x AS start, x + 1 AS end, 0 AS deviceId, 7 AS streamId FROM n;"
      "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;"
      "CREATE VIRTUAL TABLE CUPTI_ACTIVITY_KIND_MEMSET USING rtree(id, start, end);");
  expect_one_line(read_trace_from_memory(bytes, "tricked.sqlite"), "tricked.sqlite",
                  "CUPTI_ACTIVITY_KIND_KERNEL is a view or a virtual table, not a stored table");
  const std::string virtual_only =
      test::sqlite_changed(fixture(),
                           "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;"
                           "CREATE VIRTUAL TABLE cupti_activity_kind_memset USING rtree(id, start, end);");
  expect_one_line(read_trace_from_memory(virtual_only, "virtual.sqlite"), "virtual.sqlite",
                  "CUPTI_ACTIVITY_KIND_MEMSET is a view or a virtual table");
}

// A generated column is computed by the file's expression on every read (printf and zeroblob count as innocuous,
// so they run even with an untrusted schema): refused.
TEST(NsysHostile, GeneratedColumnsAreRefused) {
  const std::string bytes =
      test::sqlite_changed(fixture(),
                           "ALTER TABLE StringIds RENAME TO S0;"
                           "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, raw TEXT, value TEXT GENERATED ALWAYS AS "
                           "(raw || zeroblob(100000)) VIRTUAL);"
                           "INSERT INTO StringIds (id, raw) SELECT id, value FROM S0; DROP TABLE S0;");
  expect_one_line(read_trace_from_memory(bytes, "generated.sqlite"), "generated.sqlite",
                  "table StringIds has a generated column 'value'");
}

// Without an index on StringIds.id a lookup per name scans the table (100k names took 92 s); read once, the names
// come out the same, the first row of an id winning.
TEST(NsysHostile, StringIdsWithoutAnIndexReadTheSame) {
  const std::string bytes = test::sqlite_changed(
      fixture(),
      "ALTER TABLE StringIds RENAME TO S0; CREATE TABLE StringIds (id INTEGER, value TEXT);"
      "INSERT INTO StringIds SELECT id, value FROM S0; INSERT INTO StringIds SELECT id, 'later' FROM S0;"
      "DROP TABLE S0;");
  Expected<Trace> plain = read_trace_from_memory(fixture(), "plain.sqlite");
  Expected<Trace> t = read_trace_from_memory(bytes, "unindexed.sqlite");
  ASSERT_TRUE(plain.ok() && t.ok()) << t.error().message;
  EXPECT_EQ(t->event_count(), plain->event_count());
  for (std::size_t i = 0; i < t->lanes().size(); ++i)
    for (std::size_t j = 0; j < t->lanes()[i].events.size(); ++j)
      EXPECT_EQ(t->name(t->lanes()[i].events[j]), plain->name(plain->lanes()[i].events[j]));
}

TEST(NsysHostile, ValuesOverTheLimitAreRefused) {
  const std::string bytes = test::sqlite_changed(
      fixture(), "UPDATE StringIds SET value = value || printf('%.*c', 5000, 'x') WHERE value LIKE 'void gemm%';");
  ReadOptions options;
  options.max_value_bytes = 4096;
  expect_one_line(read_trace_from_memory(bytes, "long.sqlite", options), "long.sqlite",
                  "a value is larger than 4096 bytes (limit: see GTV_MAX_VALUE_BYTES)");
  EXPECT_TRUE(read_trace_from_memory(bytes, "long.sqlite").ok());
}

// A database that must be held in memory (here inflated from gzip) is bounded like a stream.
TEST(NsysHostile, InflatedDatabaseIsBoundedByTheStreamLimit) {
  ReadOptions options;
  options.max_stream_bytes = 16 << 10;
  expect_one_line(read_trace_from_memory(test::gzip_bytes(fixture()), "big.sqlite.gz", options), "big.sqlite.gz",
                  "(limit: see GTV_MAX_STREAM_BYTES)");
}

TEST(NsysHostile, TimesOutsideTheAcceptedRangeAreErrors) {
  const std::string bytes = test::sqlite_changed(
      fixture(),
      "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 9000000000000000000, end = 9000000000000000001 "
      "WHERE rowid = 1;");
  expect_one_line(read_trace_from_memory(bytes, "far.sqlite"), "far.sqlite", "outside the accepted time range");
}

TEST(NsysHostile, UnknownFormatsListWhatGtvReads) {
  for (const std::string& bytes :
       {std::string("PK\x03\x04 a zip file"), std::string("\x07garbage"), std::string("SQLite format 2\0", 16)}) {
    Expected<Trace> t = read_trace_from_memory(bytes, "what.bin");
    expect_one_line(t, "what.bin", "byte 0: not a JSON trace nor an Nsight Systems SQLite export");
    EXPECT_NE(t.error().message.find("Chrome/Kineto JSON"), std::string::npos);
  }
  expect_one_line(read_trace_from_memory("  \n\t# comment", "blank.txt"), "blank.txt", "byte 4: not a JSON trace");
}

// A WAL-mode export (header bytes 18 and 19 say 2) reads from memory, as the GUI holds a file, and through gzip
// (a temporary file opened immutable): no -wal or -shm file is needed.
TEST(NsysHostile, WalModeExportsReadFromMemoryAndGzip) {
  std::string wal = fixture();
  wal[18] = 2;
  wal[19] = 2;
  Expected<Trace> plain = read_trace_from_memory(fixture(), "plain.sqlite");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  for (const std::string& bytes : {wal, test::gzip_bytes(wal)}) {
    Expected<Trace> t = read_trace_from_memory(bytes, "wal.sqlite");
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->event_count(), plain->event_count());
  }
}

// A database's first page: its header's page size in bytes.
std::string first_page(const std::string& bytes) {
  const std::size_t size =
      (std::size_t(static_cast<unsigned char>(bytes[16])) << 8) | static_cast<unsigned char>(bytes[17]);
  return bytes.substr(0, size == 1 ? 65536 : size);
}

// A database inflated from gzip is judged by its first page (the schema) before the rest is inflated: a page that
// is no table b-tree, an empty schema, or one without the tables gtv reads is refused; an export's reads on.
TEST(NsysHostile, InflatedDatabasesAreJudgedByTheirFirstPage) {
  EXPECT_EQ(first_page_problem(first_page(fixture())), "");
  const std::string album = test::sqlite_from("CREATE TABLE photos (id INTEGER, path TEXT);");
  EXPECT_EQ(first_page_problem(first_page(album)),
            "the schema on page 1 lacks the StringIds table or all of META_DATA_EXPORT, TARGET_INFO_GPU, "
            "CUPTI_ACTIVITY_KIND_* and NVTX_EVENTS: not an Nsight Systems export");
  const std::string emptied = test::sqlite_from("CREATE TABLE t (x); DROP TABLE t;");
  EXPECT_EQ(first_page_problem(first_page(emptied)),
            "page 1, which holds the schema, names no table: not an Nsight Systems export");
  std::string zeros = first_page(fixture());
  std::fill(zeros.begin() + 100, zeros.end(), '\0');
  EXPECT_EQ(first_page_problem(zeros),
            "page 1, which holds the schema, is not a table b-tree page (type byte 0): not an SQLite database gtv "
            "can read");
  // A cell that points past the page cannot tell: SQLite judges the database.
  std::string cut = first_page(album);
  cut[108] = '\xff';
  cut[109] = '\xff';
  EXPECT_EQ(first_page_problem(cut), "");
  expect_one_line(read_trace_from_memory(test::gzip_bytes(album), "album.sqlite.gz"), "album.sqlite.gz",
                  "the schema on page 1 lacks the StringIds table");
}

}  // namespace
}  // namespace gtv::io
