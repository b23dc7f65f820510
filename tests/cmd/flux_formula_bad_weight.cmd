# A weight for a factor mf_priority does not have, exit 1 or 2.
flux-formula --weights nosuch=1
