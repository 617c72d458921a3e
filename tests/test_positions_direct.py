"""codemods/engine/positions.py called directly, in the test's process: character offsets against
(line, column) pairs in each output's convention (1-based characters, 1-based UTF-8 bytes for
rdjson, 0-based UTF-16 code units for the server), the clamping at both ends, and line ends.

Written for mutation testing (issue 35, item 3; docs/testing.md): each test checks exact values.
Nothing here imports jax.
"""

from __future__ import annotations

import pytest

from codemods.engine.positions import CHARACTERS, UTF8, UTF16, Positions, units

# Three lines: "ab\n" (0-2), "é😀c\n" (3-6; é is 2 UTF-8 bytes, 😀 is 4 bytes and 2 UTF-16 units), "xyz" (7-9).
TEXT = "ab\né😀c\nxyz"


def test_the_unit_names_are_the_ones_the_formats_and_the_server_pass() -> None:
    assert (CHARACTERS, UTF8, UTF16) == ("characters", "utf-8", "utf-16")


@pytest.mark.parametrize(("chunk", "characters", "utf8", "utf16"), [
    ("", 0, 0, 0),
    ("abc", 3, 3, 3),
    ("é", 1, 2, 1),
    ("€", 1, 3, 1),
    ("😀", 1, 4, 2),
    ("\uffff", 1, 3, 1),        # the last code point of the BMP: one UTF-16 unit
    ("\U00010000", 1, 4, 2),    # the first past it: a surrogate pair
    ("a😀b😀", 4, 10, 6),
    ("\udcff", 1, 3, 1),        # a lone surrogate (surrogateescape's): counted, not an error
    ("x\ud800y", 3, 5, 3),
])
def test_units_in_each_unit(chunk: str, characters: int, utf8: int, utf16: int) -> None:
    assert units(chunk, CHARACTERS) == characters
    assert units(chunk, UTF8) == utf8
    assert units(chunk, UTF16) == utf16


def test_an_unknown_unit_counts_characters() -> None:
    assert units("é😀", "bytes") == 2


def test_line_starts() -> None:
    assert Positions(TEXT).starts == [0, 3, 7]
    assert Positions("").starts == [0]
    assert Positions("\n").starts == [0, 1]
    assert Positions("a\n\nb\n").starts == [0, 2, 3, 5]
    assert Positions("a\r\nb").starts == [0, 3]  # a line ends after its "\n"
    assert Positions(TEXT).text == TEXT


@pytest.mark.parametrize(("offset", "line"), [
    (-5, 0), (-1, 0), (0, 0), (1, 0), (2, 0), (3, 1), (6, 1), (7, 2), (9, 2), (10, 2), (99, 2)])
def test_line_index_with_clamping(offset: int, line: int) -> None:
    assert Positions(TEXT).line_index(offset) == line


def test_line_index_of_a_text_ending_in_a_newline() -> None:
    text = Positions("a\nb\n")
    assert [text.line_index(offset) for offset in range(-1, 7)] == [0, 0, 0, 1, 1, 2, 2, 2]


@pytest.mark.parametrize(("offset", "characters", "utf8", "utf16"), [
    (0, (1, 1), (1, 1), (0, 0)),
    (2, (1, 3), (1, 3), (0, 2)),       # before the newline
    (3, (2, 1), (2, 1), (1, 0)),       # after it: the next line's first column
    (4, (2, 2), (2, 3), (1, 1)),       # after é: 2 bytes
    (5, (2, 3), (2, 7), (1, 3)),       # after 😀: 4 bytes, 2 UTF-16 units
    (6, (2, 4), (2, 8), (1, 4)),
    (7, (3, 1), (3, 1), (2, 0)),
    (10, (3, 4), (3, 4), (2, 3)),      # the end of the text
    (11, (3, 4), (3, 4), (2, 3)),      # past it: clamped
    (-3, (1, 1), (1, 1), (0, 0)),      # before it: clamped
])
def test_position_in_each_convention(offset: int, characters, utf8, utf16) -> None:
    text = Positions(TEXT)
    assert text.position(offset) == characters
    assert text.position(offset, base=1, unit=CHARACTERS) == characters
    assert text.position(offset, unit=UTF8) == utf8
    assert text.position(offset, base=0, unit=UTF16) == utf16


def test_the_end_of_a_text_ending_in_a_newline_is_the_first_column_of_the_line_after() -> None:
    text = Positions("x = 1\n")
    assert text.position(6) == (2, 1)
    assert text.position(6, base=0, unit=UTF16) == (1, 0)
    assert text.position(5) == (1, 6)


def test_position_of_an_empty_text() -> None:
    assert Positions("").position(0) == (1, 1)
    assert Positions("").position(4, base=0) == (0, 0)


def test_position_with_a_lone_surrogate_on_the_line() -> None:
    text = Positions("a\n\udcffb")
    assert text.position(4, unit=UTF8) == (2, 5)
    assert text.position(4, base=0, unit=UTF16) == (1, 2)


@pytest.mark.parametrize(("line", "column", "offset"), [
    (1, 1, 0), (1, 3, 2), (2, 1, 3), (2, 2, 4), (2, 4, 6), (3, 1, 7), (3, 4, 10),
    (3, 9, 10),    # past the text's end: clamped
    (2, 9, 10),    # past the line's end: counted on into the next line, clamped to the text only
    (1, 0, 0),     # column 0 is column 1
    (2, -4, 3),
    (0, 5, 0),     # line 0 and before: the start
    (-1, 1, 0),
    (4, 1, 10),    # past the last line: the end
    (9, 9, 10),
])
def test_offset_of_a_line_and_column(line: int, column: int, offset: int) -> None:
    assert Positions(TEXT).offset(line, column) == offset


def test_offset_past_a_line_end_is_counted_on() -> None:
    assert Positions("ab\ncd\nef").offset(1, 5) == 4
    assert Positions("ab\ncd\n").offset(3, 1) == 6   # the empty line after the last newline exists
    assert Positions("ab\ncd\n").offset(3, 2) == 6
    assert Positions("ab\ncd\n").offset(4, 1) == 6


def test_offset_and_position_are_inverse() -> None:
    text = Positions(TEXT)
    for offset in range(len(TEXT) + 1):
        assert text.offset(*text.position(offset)) == offset


@pytest.mark.parametrize(("offset", "end"), [(0, 2), (1, 2), (2, 2), (3, 6), (5, 6), (6, 6), (7, 10), (10, 10)])
def test_line_end(offset: int, end: int) -> None:
    assert Positions(TEXT).line_end(offset) == end


def test_line_end_of_a_last_empty_line_and_of_a_first_empty_one() -> None:
    assert Positions("a\n").line_end(2) == 2
    assert Positions("\nab").line_end(0) == 0
    assert Positions("\nab").line_end(1) == 3
    assert Positions("").line_end(0) == 0


def test_a_text_starting_with_a_newline_has_offset_0_on_its_first_line() -> None:
    text = Positions("\nab")
    assert [text.line_index(offset) for offset in (-1, 0, 1, 3)] == [0, 0, 1, 1]
    assert text.position(0) == (1, 1)
    assert text.position(1) == (2, 1)
