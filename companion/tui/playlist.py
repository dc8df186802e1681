"""The play list: what happened, a line an event, wrapped at the pane's width and wrapped again when it changes."""

from __future__ import annotations

from rich.padding import Padding
from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog


class PlayList(RichLog):
    """A `RichLog` of plain lines that keeps them, so that a new width (a resized terminal, or the first one known
    on `--resume`) wraps them all again; at any new size it shows the newest. RichLog renders a line once, at least
    78 columns wide by default: in a 50-column pane a long line was cut, not wrapped."""

    def __init__(self, **kwargs) -> None:
        super().__init__(markup=False, wrap=True, min_width=1, **kwargs)
        self._texts: list[str] = []
        self._wrapped_at = 0
        self._newest_from = 0
        """The line the newest entry starts on."""

    def write(self, content, *args, **kwargs):  # type: ignore[override]
        self._texts.append(str(content))
        self._newest_from = len(self.lines)
        written = super().write(_hanging(str(content)), *args, scroll_end=False, **kwargs)
        self._show_newest()
        return written

    def _show_newest(self) -> None:
        """The newest entry, from its start when it is taller than the pane (scrolled to its end, an illegal play's
        entry showed its last words, not who played what); worked out after the refresh, at the pane's size then."""
        self.call_after_refresh(self._scroll_to_newest)

    def _scroll_to_newest(self) -> None:
        height = self.scrollable_content_region.height
        if height and len(self.lines) - self._newest_from > height:
            self.scroll_to(y=self._newest_from, animate=False, immediate=True)
        else:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def clear(self):  # type: ignore[override]
        self._texts = []
        return super().clear()

    def on_resize(self, event: Resize) -> None:
        # in place of RichLog's handler, which writes the lines deferred until a width is known: every line kept is
        # written again at each new width
        event.prevent_default()
        # the text's width, not the widget's: the short screen's styles take the pane's border off, not its width
        width = self.scrollable_content_region.width
        if not width:
            return
        self._size_known = True
        self._deferred_renders.clear()
        if width != self._wrapped_at:
            self._wrapped_at = width
            RichLog.clear(self)
            for text in self._texts:
                self._newest_from = len(self.lines)
                RichLog.write(self, _hanging(text), scroll_end=False)
        # a pane made shorter (the verdict above it grew a line) would otherwise hide the newest lines
        self._show_newest()

    @property
    def texts(self) -> list[str]:
        """The lines written, as written."""
        return list(self._texts)


def _hanging(text: str) -> Padding | str:
    """An indented line (a rating under its play) wrapped under its own indent, not at the pane's edge, where it
    read as an entry of its own."""
    indent = len(text) - len(text.lstrip(" "))
    return Padding(Text(text[indent:]), (0, 0, 0, indent)) if indent else text


__all__ = ["PlayList"]
