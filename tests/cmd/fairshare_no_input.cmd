# fairshare needs one of its tree inputs: usage error, exit 2.
fairshare -p
