# SPDX-FileCopyrightText: 2022 Hynek Schlawack <hs@ox.cx>
#
# SPDX-License-Identifier: MIT

from __future__ import annotations

from .instrumentation import RetryDetails, RetryHook


__all__ = ["RetryDetails", "RetryHook"]
