"""Evidence pictures: the source PDF of a unit, pages rendered, hits outlined."""
