# A formula that ends too early: E0104 pointing at the end, exit 1.
check 'ncpus +'
