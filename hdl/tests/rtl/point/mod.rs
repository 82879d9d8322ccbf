mod async_fifo;
mod binding;
mod bus;
mod counters;
mod packaged;
mod query;
