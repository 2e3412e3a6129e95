"""A generator of malformed and unusual PDFs, made from a real guideline excerpt by breaking it.

Each :class:`Case` builds its bytes from ``tests/fixtures/pdf/vadod_htn_2020_p23-25.pdf`` (three
public-domain pages: see that folder's SOURCES.md) or writes a small PDF of its own, with nothing
but byte manipulation (a minimal object reader and writer below) and reportlab (for encryption).
``tests/malformed_ingest.py`` ingests them (``tests/test_malformed_pdfs.py``, ``benchmarks/malformed_pdfs.py``).

``expect`` is what an ingest of the case must end in:

* ``"units"``: the document is read (PDFium repairs the damage, or the route reads around it);
* ``"error"``: one typed error naming the file (the document cannot be read);
* ``"either"``: one of the two (how much PDFium recovers is its business, not ours).

Usage: ``python tests/malformed_pdfs.py OUT_DIR`` writes every case as ``OUT_DIR/<name>.pdf``.
"""

from __future__ import annotations

import io
import re
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "pdf" / "vadod_htn_2020_p23-25.pdf"

_OBJ = re.compile(rb"(\d+) 0 obj")
_LENGTH = re.compile(rb"/Length\s+(\d+)\b(?!\s+\d+\s+R)")
_TRAILER = re.compile(rb"trailer\s*<<(.*?)>>\s*startxref", re.S)

# guideline-style sentences drawn on the pages this module writes itself
LINES = [
    "Recommendation 4. In adults with hypertension, we suggest a blood pressure goal below 130/80 mm Hg.",
    "Weak for | Reviewed, New-added",
    "Home blood pressure monitoring should be offered to every patient starting treatment.",
]


@dataclass
class Obj:
    """One indirect object: its dictionary (or other value) and, for a stream, its raw (encoded) data."""

    head: bytes
    data: bytes | None = None


def read_objects(pdf: bytes) -> tuple[dict[int, Obj], bytes]:
    """The indirect objects of a PDF with a classic cross-reference table, and its trailer dictionary's body.
    Streams are sliced by their direct ``/Length``; a later object of the same number wins."""
    objects: dict[int, Obj] = {}
    pos = 0
    while m := _OBJ.search(pdf, pos):
        num, i = int(m[1]), m.end()
        end = pdf.find(b"endobj", i)
        s = pdf.find(b"stream", i, end)
        if s == -1:
            objects[num] = Obj(pdf[i:end].strip())
            pos = end + 6
            continue
        head = pdf[i:s].strip()
        start = s + 6 + (2 if pdf[s + 6 : s + 8] == b"\r\n" else 1)
        n = int(_LENGTH.search(head)[1])
        objects[num] = Obj(head, pdf[start : start + n])
        pos = pdf.find(b"endobj", start + n) + 6
    trailer = _TRAILER.search(pdf)
    return objects, trailer[1] if trailer else b""


def write_pdf(objects: dict[int, Obj], root: int, *, info: int | None = None, fix_lengths: bool = True) -> bytes:
    """A PDF of ``objects`` with a correct cross-reference table (``fix_lengths``: each stream's ``/Length`` set
    to its data's; off, the dictionaries are written as they are)."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets: dict[int, int] = {}
    for num in sorted(objects):
        obj = objects[num]
        offsets[num] = out.tell()
        out.write(b"%d 0 obj\n" % num)
        if obj.data is None:
            out.write(obj.head + b"\nendobj\n")
            continue
        head = obj.head
        if fix_lengths:
            length = b"/Length %d" % len(obj.data)
            head = _LENGTH.sub(length, head, count=1) if _LENGTH.search(head) else head[:-2] + length + b">>"
        out.write(head + b"\nstream\n" + obj.data + b"\nendstream\nendobj\n")
    size = max(objects) + 1
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % size)
    for num in range(1, size):
        out.write(b"%010d 00000 n \n" % offsets[num] if num in offsets else b"0000000000 65535 f \n")
    info_ref = b"/Info %d 0 R" % info if info else b""
    out.write(b"trailer\n<</Size %d/Root %d 0 R%s>>\nstartxref\n%d\n%%%%EOF\n" % (size, root, info_ref, xref))
    return out.getvalue()


def _fixture() -> tuple[dict[int, Obj], int]:
    objects, trailer = read_objects(FIXTURE.read_bytes())
    return objects, int(re.search(rb"/Root\s+(\d+)", trailer)[1])


def _pages(objects: dict[int, Obj]) -> list[int]:
    return [n for n, o in sorted(objects.items()) if re.search(rb"/Type\s*/Page(?!s)", o.head)]


def _contents(objects: dict[int, Obj]) -> list[int]:
    """The content streams of the pages (direct references only)."""
    out: list[int] = []
    for n in _pages(objects):
        m = re.search(rb"/Contents\s*(\[[^\]]*\]|\d+\s+0\s+R)", objects[n].head)
        out += [int(x) for x in re.findall(rb"(\d+)\s+0\s+R", m[1])] if m else []
    return out


def _text_stream(lines: list[str], *, x: float = 72, y: float = 720, size: float = 11) -> bytes:
    ops = [b"BT /F1 %g Tf %g TL %g %g Td" % (size, size * 1.4, x, y)]
    ops += [
        b"(" + t.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1") + b") Tj T*"
        for t in lines
    ]
    return b"\n".join([*ops, b"ET"])


_FONT = Obj(b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>")


def _simple(pages: list[tuple[bytes, bytes]], extra: dict[int, Obj] | None = None, *, kids_extra: bytes = b"") -> bytes:
    """A PDF of ``pages`` (content stream, page dictionary additions) sharing Helvetica as /F1; object 1 the
    catalog, 2 the page tree, 3 the font, pages and their contents from 10 on, ``extra`` objects as given."""
    objects: dict[int, Obj] = {1: Obj(b"<</Type/Catalog/Pages 2 0 R>>"), 3: _FONT}
    kids, num, shared = [], 10, {}
    for content, more in pages:
        if content not in shared:  # identical content streams are one object (thousands of empty pages stay small)
            shared[content] = num + 1
            objects[num + 1] = Obj(b"<<>>", content)
        page = b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 3 0 R>>>>/Contents %d 0 R%s>>"
        objects[num] = Obj(page % (shared[content], more))
        kids.append(b"%d 0 R" % num)
        num += 2
    objects[2] = Obj(b"<</Type/Pages/Kids[%s%s]/Count %d>>" % (b" ".join(kids), kids_extra, len(kids)))
    objects.update(extra or {})
    return write_pdf(objects, 1)


# -- the cases ---------------------------------------------------------------------------------------


def broken_xref() -> bytes:
    """Every cross-reference offset wrong (shifted by 37 bytes): a reader must rebuild the table by scanning."""
    pdf = FIXTURE.read_bytes()
    head, sep, tail = pdf.rpartition(b"\nxref\n")
    return head + sep + re.sub(rb"(?m)^(\d{10}) 00000 n", lambda m: b"%010d 00000 n" % (int(m[1]) + 37), tail)


def no_xref() -> bytes:
    """No cross-reference table at all, ``startxref`` pointing past the end of the file."""
    pdf = FIXTURE.read_bytes()
    cut = pdf.rfind(b"\nxref\n")
    return pdf[:cut] + b"\nstartxref\n99999999\n%%EOF\n"


def truncated_file() -> bytes:
    """The file cut at 60 % of its bytes (a download that stopped): no table, no trailer, half the objects."""
    pdf = FIXTURE.read_bytes()
    return pdf[: len(pdf) * 6 // 10]


def truncated_stream() -> bytes:
    """Each page's content stream cut to half its bytes, its ``/Length`` still the full length."""
    objects, root = _fixture()
    for n in _contents(objects):
        obj = objects[n]
        objects[n] = Obj(_LENGTH.sub(b"/Length %d" % len(obj.data), obj.head), obj.data[: len(obj.data) // 2])
    return write_pdf(objects, root, fix_lengths=False)


def unknown_filter() -> bytes:
    """Each page's content stream declares a filter no reader knows (``/NoSuchDecode``)."""
    objects, root = _fixture()
    for n in _contents(objects):
        objects[n].head = objects[n].head.replace(b"/FlateDecode", b"/NoSuchDecode")
    return write_pdf(objects, root)


def corrupted_stream() -> bytes:
    """Each page's content stream with its deflate data overwritten in the middle (a damaged copy)."""
    objects, root = _fixture()
    for n in _contents(objects):
        d = bytearray(objects[n].data)
        mid = len(d) // 3
        d[mid : mid + 64] = bytes((b * 7 + 13) & 0xFF for b in d[mid : mid + 64])
        objects[n].data = bytes(d)
    return write_pdf(objects, root)


def absurd_page_box() -> bytes:
    """Every page's MediaBox a million points square (about 350 m; the format's own limit is 14,400)."""
    objects, root = _fixture()
    for n in _pages(objects):
        head = re.sub(rb"/(MediaBox|CropBox)\s*\[[^\]]*\]", b"", objects[n].head)
        objects[n].head = head[:-2] + b"/MediaBox[0 0 1000000 1000000]>>"
    return write_pdf(objects, root)


def thousands_of_pages() -> bytes:
    """3,000 pages: the first with the guideline's text, the other 2,999 empty."""
    return _simple([(_text_stream(LINES), b"")] + [(b"", b"")] * 2999)


def blank_pages() -> bytes:
    """Three pages with nothing on them."""
    return _simple([(b"", b"")] * 3)


def _image_pdf(px: int, box: tuple[float, float], *, text: bool) -> bytes:
    """One page of size ``box`` (points) holding one ``px`` x ``px`` grey image over the whole page and nothing
    else; ``text``: the guideline's lines are painted into the image (a scan), else it is blank."""
    from PIL import Image, ImageDraw, ImageFont

    if text:
        img = Image.new("L", (px, px), 255)
        draw, size = ImageDraw.Draw(img), px // 40
        font = ImageFont.load_default(size=size)
        for i, line in enumerate(LINES):
            draw.text((px // 20, px // 10 + i * size * 2), line, fill=0, font=font)
        raw = zlib.compress(img.tobytes(), 6)
        del img, draw
    else:
        comp = zlib.compressobj(9)
        row = b"\xff" * px
        raw = b"".join(comp.compress(row) for _ in range(px)) + comp.flush()
    w, h = box
    image_dict = b"<</Type/XObject/Subtype/Image/Width %d/Height %d/ColorSpace/DeviceGray/BitsPerComponent 8/Filter/FlateDecode>>"
    image = Obj(image_dict % (px, px), raw)
    content = b"q %g 0 0 %g 0 0 cm /Im1 Do Q" % (w, h)
    return write_pdf(
        {
            1: Obj(b"<</Type/Catalog/Pages 2 0 R>>"),
            2: Obj(b"<</Type/Pages/Kids[3 0 R]/Count 1>>"),
            3: Obj(
                b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 %g %g]/Resources<</XObject<</Im1 5 0 R>>>>/Contents 4 0 R>>"
                % (w, h)
            ),
            4: Obj(b"<<>>", content),
            5: image,
        },
        1,
    )


def huge_blank_image() -> bytes:
    """A blank page holding one blank 12,000 x 12,000 pixel image, the page as large as the image at 72 dpi."""
    return _image_pdf(12_000, (12_000, 12_000), text=False)


def huge_scan() -> bytes:
    """A scanned page: a 12,000 x 12,000 pixel image with the guideline's lines in it, on a 12,000-point page."""
    return _image_pdf(12_000, (12_000, 12_000), text=True)


def huge_image_letter() -> bytes:
    """A Letter page holding one 12,000 x 12,000 pixel scan of the guideline's lines (1,400 dpi)."""
    return _image_pdf(12_000, (612, 792), text=True)


def _encrypted(user: str) -> bytes:
    from reportlab.lib.pdfencrypt import StandardEncryption
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, encrypt=StandardEncryption(user, ownerPassword="owner-secret", strength=128), invariant=1)
    y = 720
    for line in LINES:
        c.drawString(72, y, line)
        y -= 16
    c.showPage()
    c.save()
    return buf.getvalue()


def encrypted_empty_password() -> bytes:
    """Encrypted (128-bit) with an empty user password: any reader opens it without asking."""
    return _encrypted("")


def encrypted_with_password() -> bytes:
    """Encrypted with a user password nobody gave us."""
    return _encrypted("s3cret")


def self_drawing_form() -> bytes:
    """A page that draws a form XObject which draws itself (an endless recursion for a naive renderer)."""
    form = Obj(b"<</Type/XObject/Subtype/Form/BBox[0 0 612 792]/Resources<</Font<</F1 3 0 R>>/XObject<</Fx 9 0 R>>>>>>",
               _text_stream(LINES[:1], y=600) + b"\nq 0.9 0 0 0.9 10 10 cm /Fx Do Q")  # fmt: skip
    return _simple(
        [(_text_stream(LINES) + b"\n/Fx Do", b"/Resources<</Font<</F1 3 0 R>>/XObject<</Fx 9 0 R>>>>")], {9: form}
    )


def self_including_page_tree() -> bytes:
    """A page tree whose ``/Kids`` lists the tree itself beside the page (a PDF that includes itself)."""
    return _simple([(_text_stream(LINES), b"")], kids_extra=b" 2 0 R")


def zero_bytes() -> bytes:
    """An empty file named ``.pdf``."""
    return b""


def not_a_pdf() -> bytes:
    """A plain text file named ``.pdf``."""
    return ("\n".join(LINES) + "\n").encode()


def header_only() -> bytes:
    """A PDF header and nothing else."""
    return b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"


@dataclass(frozen=True)
class Case:
    """One malformed input: its name (the file's stem), how it is built and what an ingest must end in."""

    name: str
    build: Callable[[], bytes]
    expect: str

    @property
    def what(self) -> str:
        return (self.build.__doc__ or "").strip().splitlines()[0]


CASES = [
    Case("broken_xref", broken_xref, "units"),
    Case("no_xref", no_xref, "units"),
    Case("truncated_file", truncated_file, "either"),
    Case("truncated_stream", truncated_stream, "either"),
    Case("unknown_filter", unknown_filter, "error"),
    Case("corrupted_stream", corrupted_stream, "either"),
    Case("absurd_page_box", absurd_page_box, "units"),
    Case("thousands_of_pages", thousands_of_pages, "units"),
    Case("blank_pages", blank_pages, "error"),
    Case("huge_blank_image", huge_blank_image, "error"),
    Case("huge_scan", huge_scan, "units"),
    Case("huge_image_letter", huge_image_letter, "units"),
    Case("encrypted_empty_password", encrypted_empty_password, "units"),
    Case("encrypted_with_password", encrypted_with_password, "error"),
    Case("self_drawing_form", self_drawing_form, "units"),
    Case("self_including_page_tree", self_including_page_tree, "units"),
    Case("zero_bytes", zero_bytes, "error"),
    Case("not_a_pdf", not_a_pdf, "error"),
    Case("header_only", header_only, "error"),
]


def write_cases(folder: Path, cases: list[Case] = CASES) -> dict[str, Path]:
    """Write every case as ``folder/<name>.pdf``; returns name -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for case in cases:
        out[case.name] = folder / f"{case.name}.pdf"
        out[case.name].write_bytes(case.build())
    return out


if __name__ == "__main__":
    for _name, path in write_cases(Path(sys.argv[1])).items():
        print(f"{path.stat().st_size:>10}  {path}")
