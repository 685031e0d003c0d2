__all__ = (
    "StateBlock",
    "blockquote",
    "code",
    "fence",
    "heading",
    "hr",
    "html_block",
    "lheading",
    "list_block",
    "make_fence_rule",
    "paragraph",
    "reference",
    "table",
)

from .blockquote import blockquote
from .code import code
from .fence import fence, make_fence_rule
from .heading import heading
from .hr import hr
from .html_block import html_block
from .lheading import lheading
from .list import list_block
from .paragraph import paragraph
from .reference import reference
from .state_block import StateBlock
from .table import table
