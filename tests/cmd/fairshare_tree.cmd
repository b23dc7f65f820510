# The PBS fairshare tree (pbsfs -t).
fairshare --resource-group examples/resource_group --usage examples/usage.json -t
