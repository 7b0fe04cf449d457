//! A corpus's rows put in another order in place ([`super::CorpusBuilder::sort_by_id`]).

/// Rearranges variable-length rows (`offsets`, one more than rows, into `values`) as
/// [`permute_rows`] does, by one copy; nothing when the rows are not kept.
pub(super) fn permute_ranges<T: Copy>(
    offsets: &mut Vec<usize>,
    values: &mut Vec<T>,
    order: &[u32],
) {
    if offsets.len() != order.len() + 1 {
        return;
    }
    let mut new_offsets = Vec::with_capacity(order.len() + 1);
    let mut new_values = Vec::with_capacity(values.len());
    new_offsets.push(0);
    for &i in order {
        let i = i as usize;
        new_values.extend_from_slice(&values[offsets[i]..offsets[i + 1]]);
        new_offsets.push(new_values.len());
    }
    *offsets = new_offsets;
    *values = new_values;
}

/// Rearranges `rows` (rows of `width` values) so that row `i` becomes the row that was at
/// `order[i]`, in place: each cycle of the permutation is followed with one row of scratch.
pub(super) fn permute_rows<T: Clone + Default>(data: &mut [T], width: usize, order: &[u32]) {
    if width == 0 || data.is_empty() {
        return;
    }
    let mut done = vec![false; order.len()];
    let mut scratch: Vec<T> = Vec::with_capacity(width);
    for start in 0..order.len() {
        if done[start] || order[start] as usize == start {
            done[start] = true;
            continue;
        }
        // Save the row at `start`, then pull each row into the place that wants it.
        scratch.clear();
        scratch.extend_from_slice(&data[start * width..(start + 1) * width]);
        let mut at = start;
        loop {
            done[at] = true;
            let from = order[at] as usize;
            if from == start {
                data[at * width..(at + 1) * width].clone_from_slice(&scratch);
                break;
            }
            let (dst, src) = (at * width, from * width);
            for k in 0..width {
                data[dst + k] = std::mem::take(&mut data[src + k]);
            }
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn permute_rows_moves_every_row_where_the_order_says() {
        let width = 3;
        for n in 0..9usize {
            let data: Vec<u32> = (0..(n * width) as u32).collect();
            // A few permutations: reversed, rotated, and a shuffle.
            let mut orders: Vec<Vec<u32>> = vec![(0..n as u32).rev().collect()];
            orders.push((0..n as u32).map(|i| (i + 1) % n.max(1) as u32).collect());
            let mut x = 7u32;
            let mut shuffled: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                shuffled.swap(i, (x as usize) % (i + 1));
            }
            orders.push(shuffled);
            for order in orders {
                let mut got = data.clone();
                super::permute_rows(&mut got, width, &order);
                let want: Vec<u32> = order
                    .iter()
                    .flat_map(|&i| data[i as usize * width..(i as usize + 1) * width].to_vec())
                    .collect();
                assert_eq!(got, want, "n={n} order={order:?}");
            }
        }
    }
}
