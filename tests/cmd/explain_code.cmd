# explain prints what a code means with an example.
explain E0304
