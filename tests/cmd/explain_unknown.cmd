# explain with a code that does not exist, exit 1.
explain Z9999
