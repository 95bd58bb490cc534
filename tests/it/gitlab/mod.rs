//! GitLab as deployed and as networks bend it, and our GraphQL documents against its schema.

mod deployed;
mod graphql_schema;
mod paging;
mod query_cost;
