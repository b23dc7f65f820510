physics 10 root 50
alice 11 physics
