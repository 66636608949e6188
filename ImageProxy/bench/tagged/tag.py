#!/usr/bin/env python3
"""tag.py ICC SRC... : writes each SRC (a JPEG) beside itself as t<NNN>.jpg for c<NNN>.jpg, the
same bytes with the ICC profile embedded in APP2 ICC_PROFILE markers right after SOI. The
compressed image is untouched, so a tagged and an untagged source cost the decoder the same;
only the colour conversion differs."""
import os
import sys

CHUNK = 65519  # the most profile bytes one APP2 marker carries (65535 - 2 - 14)


def app2(profile):
    chunks = [profile[i:i + CHUNK] for i in range(0, len(profile), CHUNK)]
    out = b""
    for index, chunk in enumerate(chunks, 1):
        body = b"ICC_PROFILE\0" + bytes([index, len(chunks)]) + chunk
        out += b"\xff\xe2" + (len(body) + 2).to_bytes(2, "big") + body
    return out


def main():
    with open(sys.argv[1], "rb") as f:
        profile = f.read()
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] != b"\xff\xd8":
            sys.exit("tag.py: %s is not a JPEG" % path)
        name = os.path.basename(path)
        out = os.path.join(os.path.dirname(path), "t" + name[1:])
        with open(out, "wb") as f:
            f.write(data[:2] + app2(profile) + data[2:])


main()
