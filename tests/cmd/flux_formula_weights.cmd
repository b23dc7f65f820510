# flux-formula with weights given.
flux-formula --weights fairshare=1000,urgency=10
