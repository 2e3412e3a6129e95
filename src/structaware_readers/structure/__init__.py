"""The structure passes over blocks (blocks -> blocks): page furniture, reading order, headings, references, front matter."""
