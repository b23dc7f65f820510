# An unknown top-level flag, exit 2.
--bogus
