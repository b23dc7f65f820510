# The PBS fairshare table (pbsfs -p) of the example tree and usage.
fairshare --resource-group examples/resource_group --usage examples/usage.json
