# An unknown name: E0201 with how to declare a custom resource, exit 1.
check --formula 'foo * 2'
