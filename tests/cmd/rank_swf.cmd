# rank reads an SWF trace (format from the extension).
rank --jobs examples/trace.swf walltime
