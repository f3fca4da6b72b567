#include "gtv/base/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace gtv {
namespace {

using namespace std::string_literals;

TEST(Printable, KeepsPrintableAsciiAndUtf8) {
  EXPECT_EQ(printable("void gemm<float, 128>(float*) | x \\ y"), "void gemm<float, 128>(float*) | x \\ y");
  EXPECT_EQ(printable("Gr\xc3\xbc\xc3\x9f\x65 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80"),
            "Gr\xc3\xbc\xc3\x9f\x65 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80");
  EXPECT_EQ(printable("\xc2\xa0nbsp"), "\xc2\xa0nbsp");  // U+00A0 is the first character after C1
  EXPECT_EQ(printable(""), "");
}

TEST(Printable, EscapesC0ControlsAndDel) {
  EXPECT_EQ(printable("a\0b"s), "a\\x00b");
  EXPECT_EQ(printable("line\nnext\r\t"), "line\\x0anext\\x0d\\x09");
  EXPECT_EQ(printable("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(printable("del\x7f"), "del\\x7f");
}

TEST(Printable, EscapesC1ControlsRawAndEncoded) {
  EXPECT_EQ(printable("\x9b"
                      "31m"),
            "\\x9b31m");  // raw CSI byte, not UTF-8
  EXPECT_EQ(printable("\xc2\x9b"
                      "31m"),
            "\\xc2\\x9b31m");  // U+009B encoded as UTF-8
  EXPECT_EQ(printable("\xc2\x85"), "\\xc2\\x85");
}

TEST(Printable, EscapesBytesThatAreNotUtf8) {
  EXPECT_EQ(printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(printable("cut \xe6\x97"), "cut \\xe6\\x97");   // a sequence cut off by the end
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("\xe6\x97"
                      "A"),
            "\\xe6\\x97"
            "A");  // a sequence broken by ASCII
}

TEST(Utf8SequenceLength, ValidAndInvalid) {
  EXPECT_EQ(utf8_sequence_length("a", 0), 1u);
  EXPECT_EQ(utf8_sequence_length("\xc3\xbc", 0), 2u);
  EXPECT_EQ(utf8_sequence_length("\xf0\x9f\x9a\x80", 0), 4u);
  EXPECT_EQ(utf8_sequence_length("\xf4\x90\x80\x80", 0), 0u);
  EXPECT_EQ(utf8_sequence_length("\x80", 0), 0u);
}

}  // namespace
}  // namespace gtv
