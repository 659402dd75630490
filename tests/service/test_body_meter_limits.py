"""The body meter's limits to the byte: a request body and each file of a multipart upload may be
exactly as large as allowed, not a byte more, however the body is cut into chunks; the refusals
say which limit and which setting."""

from __future__ import annotations

from colmeia.service.bodies import BodyMeter

MB = 1024 * 1024
SLACK = 64 * 1024  # room for a part's headers above the per-file limit
FORM = {"content-type": "multipart/form-data; boundary=XyZ"}
DELIMITER = b"\r\n--XyZ"
TOO_BIG = "the request body is larger than 1 MB (COLMEIA_SERVICE_MAX_REQUEST_MB)"
FILE_TOO_BIG = (
    "a file of the upload is larger than 0.5 MB (COLMEIA_SERVICE_MAX_UPLOAD_MB); "
    "it was refused while being sent"
)


def test_a_declared_length_of_exactly_the_limit_is_let_in_one_byte_more_is_refused() -> None:
    meter = BodyMeter.for_request({}, request_mb=1, upload_mb=1)
    assert meter.declared(str(MB)) is None
    assert meter.declared(str(MB + 1)) == TOO_BIG
    assert meter.declared("not a number") is None  # left to the server to reject


def test_the_body_counts_every_chunk_and_stops_one_byte_past_the_limit() -> None:
    meter = BodyMeter.for_request({"content-type": "application/json"}, 1, 1)
    assert [meter.feed(b"a" * (MB // 4)) for _ in range(4)] == [None] * 4
    assert meter.received == MB
    assert meter.feed(b"a") == TOO_BIG


def test_a_body_that_is_not_a_form_has_no_per_file_limit_even_with_a_boundary_parameter() -> None:
    meter = BodyMeter.for_request({"content-type": "text/plain; boundary=XyZ"}, 1, 0.001)
    assert meter.part_limit is None
    assert meter.feed(b"a" * (MB // 2)) is None


def test_a_file_may_be_as_large_as_the_upload_limit_plus_room_for_its_headers() -> None:
    limit = MB // 2 + SLACK
    exact = BodyMeter.for_request(FORM, 1, 0.5)
    assert exact.feed(b"preamble" + DELIMITER + b"f" * limit) is None
    over = BodyMeter.for_request(FORM, 1, 0.5)
    assert over.feed(b"preamble" + DELIMITER + b"f" * (limit + 1)) == FILE_TOO_BIG


def test_a_file_is_counted_from_the_delimiter_that_opens_the_body() -> None:
    limit = MB // 2 + SLACK
    assert BodyMeter.for_request(FORM, 1, 0.5).feed(DELIMITER + b"f" * limit) is None
    over = BodyMeter.for_request(FORM, 1, 0.5)
    assert over.feed(DELIMITER + b"f" * (limit + 1)) == FILE_TOO_BIG


def test_many_small_files_in_one_chunk_are_each_within_the_limit() -> None:
    part = b"f" * (MB // 8)
    meter = BodyMeter.for_request(FORM, 1, 0.5)
    # six files of 128 KB each: 768 KB in all, past the 576 KB a single file may have
    assert meter.feed(b"".join(DELIMITER + part for _ in range(6))) is None


def test_a_file_sent_in_many_chunks_is_counted_across_them() -> None:
    limit = MB // 2 + SLACK
    meter = BodyMeter.for_request(FORM, 1, 0.5)
    assert meter.feed(DELIMITER[:4]) is None  # the delimiter itself split across two chunks
    assert meter.feed(DELIMITER[4:] + b"f" * (limit - 10)) is None
    assert meter.feed(b"f" * 10) is None
    assert meter.feed(b"f") == FILE_TOO_BIG
