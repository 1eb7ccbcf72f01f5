"""Comparing two pictures within a tolerance, with pygame's own blits (fast, no numpy)."""

from __future__ import annotations

from dataclasses import dataclass

from display._pygame import pygame

STRONG = 48  # a channel differing by more than this is a visible change, not antialiasing


@dataclass(frozen=True)
class Difference:
    mean: float  # mean absolute difference per channel, 0..255 (pygame rounds it to whole)
    strong_share: float  # share of pixels with a channel differing by more than STRONG


def _rgb(surface: pygame.Surface) -> pygame.Surface:
    out = pygame.Surface(surface.get_size(), 0, 32)
    out.blit(surface, (0, 0))
    return out


def difference(a: pygame.Surface, b: pygame.Surface) -> Difference:
    assert a.get_size() == b.get_size(), (a.get_size(), b.get_size())
    a, b = _rgb(a), _rgb(b)
    minus = a.copy()
    minus.blit(b, (0, 0), special_flags=pygame.BLEND_RGB_SUB)  # max(a - b, 0)
    plus = b.copy()
    plus.blit(a, (0, 0), special_flags=pygame.BLEND_RGB_SUB)  # max(b - a, 0)
    minus.blit(plus, (0, 0), special_flags=pygame.BLEND_RGB_ADD)  # |a - b|
    r, g, bl, _alpha = pygame.transform.average_color(minus, consider_alpha=False)
    width, height = a.get_size()
    # Pixels within STRONG of black in every channel, i.e. |a - b| <= STRONG.
    close = pygame.transform.threshold(None, minus, (0, 0, 0),
                                       (STRONG + 1, STRONG + 1, STRONG + 1, 255),
                                       set_behavior=0)
    return Difference((r + g + bl) / 3, 1 - close / (width * height))
