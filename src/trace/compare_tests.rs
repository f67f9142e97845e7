use super::*;
use crate::trace::record::Stream;

fn launch(kernel: &str, scalar: &str, data: &[f32]) -> Step {
    let data = data.iter().flat_map(|f| f.to_le_bytes()).collect();
    let buffer = Buffer { type_name: "float*".into(), mem: "0x1".into(), data };
    Step::Launch(Launch {
        kernel: kernel.into(),
        ns: 10,
        sizes: [None, Some(vec![4]), None],
        args: vec![Arg::Scalar(scalar.into()), Arg::Buffer(buffer)],
    })
}

/// A run of one thread of one process.
fn trace(steps: Vec<Step>) -> Trace {
    let stream = Stream { command: "./host".into(), steps: (0..steps.len()).collect(), ..Stream::default() };
    Trace { steps, streams: vec![stream], ..Trace::default() }
}

#[test]
fn the_first_differing_element_is_named_at_its_kernel_and_launch() {
    let a =
        || trace(vec![launch("f", "01", &[1.0, 2.0]), launch("g", "01", &[1.0, 2.0, 3.0]), launch("g", "01", &[1.0, 2.0, 3.0])]);
    let m = trace(vec![launch("f", "01", &[1.0, 2.0]), launch("g", "01", &[1.0, 2.0, 3.0]), launch("g", "01", &[1.0, 2.0, 4.0])]);
    let c = compare(&[&a(), &a()], &m, 0);
    assert_eq!(c.differences.len(), 1);
    let d = &c.differences[0];
    assert_eq!(
        (d.place.kernel.as_deref(), d.place.launch, d.place.step, d.place.argument, d.element),
        (Some("g"), 2, 3, Some(1), Some(2))
    );
    assert_eq!((d.original.as_str(), d.migrated.as_str()), ("3.0", "4.0"));
    assert_eq!((c.launches, c.buffers), (3, 3));
}

#[test]
fn what_differs_between_the_originals_is_left_out() {
    let a = trace(vec![launch("f", "01", &[1.0]), launch("f", "01", &[5.0])]);
    let b = trace(vec![launch("f", "02", &[1.0]), launch("f", "01", &[6.0])]);
    let m = trace(vec![launch("f", "03", &[1.0]), launch("f", "01", &[7.0])]);
    let c = compare(&[&a, &b], &m, 0);
    assert!(c.differences.is_empty(), "{:?}", c.differences);
    // What varied in one launch is left out of every launch of that argument: the scalar and
    // the buffer's element 0, in both launches.
    assert_eq!(c.nondeterministic.len(), 4);
    assert_eq!(c.kernels["f"].nondeterministic, 4);
}

#[test]
fn only_the_elements_that_vary_are_left_out_and_the_rest_is_compared() {
    let a = trace(vec![launch("f", "01", &[9.0, 2.0, 3.0])]);
    let b = trace(vec![launch("f", "01", &[8.0, 2.0, 3.0])]);
    let m = trace(vec![launch("f", "01", &[7.0, 2.0, 4.0])]);
    let c = compare(&[&a, &b], &m, 0);
    assert_eq!(c.differences.len(), 1, "{:?}", c.differences);
    assert_eq!((c.differences[0].element, c.differences[0].migrated.as_str()), (Some(2), "4.0"));
    let varied = &c.nondeterministic[0];
    assert_eq!((varied.elements, varied.of, varied.first), (Some(1), Some(3), Some(0)));
}

#[test]
fn threads_that_start_in_another_order_are_paired_by_what_they_did() {
    // Two threads run the same kernel on their own data; in the second run and the migrated
    // one the other thread came first.
    let two = |first: f32, second: f32| {
        let steps = vec![launch("f", "01", &[first]), launch("f", "01", &[second])];
        let stream = |thread, step| Stream { command: "./host".into(), thread, steps: vec![step], ..Stream::default() };
        Trace { steps, streams: vec![stream(0, 0), stream(1, 1)], ..Trace::default() }
    };
    let c = compare(&[&two(1.0, 2.0), &two(2.0, 1.0)], &two(2.0, 1.0), 0);
    assert!(c.differences.is_empty() && c.nondeterministic.is_empty(), "{c:?}");
    let wrong = compare(&[&two(1.0, 2.0), &two(2.0, 1.0)], &two(2.0, 1.5), 0);
    assert_eq!(wrong.differences.len(), 1, "{wrong:?}");
    assert!(wrong.differences[0].place.stream.as_deref().unwrap().starts_with("`./host` (process 1, thread 1)"), "{wrong:?}");
}

#[test]
fn tolerance_counts_units_in_the_last_place() {
    let next = f32::from_bits(1.0f32.to_bits() + 2);
    let a = || trace(vec![launch("f", "01", &[1.0])]);
    let m = || trace(vec![launch("f", "01", &[next])]);
    assert_eq!(compare(&[&a(), &a()], &m(), 1).differences.len(), 1);
    assert!(compare(&[&a(), &a()], &m(), 2).differences.is_empty());
    // Across zero: -0.0 and the smallest positive subnormal are one unit apart.
    assert!(Element::F32.same(&(-0.0f32).to_le_bytes(), &f32::from_bits(1).to_le_bytes(), 1));
}

#[test]
fn a_diverging_launch_sequence_is_reported_as_such() {
    let a = || trace(vec![launch("f", "01", &[1.0]), launch("g", "01", &[1.0])]);
    let m = trace(vec![launch("f", "01", &[1.0]), launch("h", "01", &[1.0])]);
    let c = compare(&[&a(), &a()], &m, 0);
    assert_eq!(c.divergence.as_deref(), Some("step 2: kernel g against h"));
    let short = trace(vec![launch("f", "01", &[1.0])]);
    assert!(compare(&[&a(), &a()], &short, 0).divergence.unwrap().contains("ended after 1 steps"));
}

#[test]
fn signed_elements_show_their_sign() {
    assert_eq!(Element::of("int*").show(&(-3i32).to_le_bytes()), "-3");
    assert_eq!(Element::of("uint4*").show(&7u32.to_le_bytes()), "7");
    assert_eq!(Element::of("double*").show(&0.5f64.to_le_bytes()), "0.5");
}

#[test]
fn a_third_original_run_finds_what_two_agreed_on_by_chance() {
    let a = trace(vec![launch("f", "01", &[1.0, 2.0])]);
    let b = trace(vec![launch("f", "01", &[1.0, 2.0])]);
    let c = trace(vec![launch("f", "01", &[1.0, 3.0])]);
    let m = trace(vec![launch("f", "01", &[1.0, 3.0])]);
    assert_eq!(compare(&[&a, &b], &m, 0).differences.len(), 1);
    let three = compare(&[&a, &b, &c], &m, 0);
    assert!(three.differences.is_empty(), "{:?}", three.differences);
    assert_eq!(three.nondeterministic.len(), 1);
}

#[test]
fn a_difference_the_options_alone_make_is_told_apart() {
    let a = || trace(vec![launch("f", "01", &[1.0, 2.0]), launch("g", "01", &[5.0])]);
    let m = trace(vec![launch("f", "01", &[1.0, 2.5]), launch("g", "01", &[6.0])]);
    let options_run = trace(vec![launch("f", "01", &[1.0, 2.5]), launch("g", "01", &[5.0])]);
    let mut c = compare(&[&a(), &a()], &m, 0);
    explain_by_options(&mut c, &[&a()], &m, &options_run);
    let alone: Vec<_> = c.differences.iter().map(|d| (d.place.kernel.clone().unwrap(), d.options_alone)).collect();
    assert_eq!(alone, vec![("f".to_string(), Some(true)), ("g".to_string(), Some(false))]);
}
