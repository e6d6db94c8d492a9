"""Attribute names of torch's own objects: `nn.Module`, `optim.Optimizer`, `LRScheduler`,
`amp.GradScaler` and `Tensor` (torch 2.13; dunders left out).

A method of one of these names called on a value we cannot see is taken for torch's
(`opt.step()`, `x.detach()`), even where a project class defines one of that name:
sole_definers.py never resolves it to the project's class. tests/test_sole_definers.py checks the list against
the installed torch.
"""

TORCH_OBJECT_NAMES = frozenset(
    """
    H OptimizerPostHook OptimizerPreHook T T_destination _accelerator_graph_capture_health_check
    _addmm_activation _apply _autocast_to_full_precision _autocast_to_reduced_precision
    _backward_hooks _base _call_impl _cdata _check_inf_per_device _check_scale_growth_tracker
    _clear_non_serializable_cached_data _coalesced_ _compiled_call_impl _conj _conj_physical
    _cuda_graph_capture_health_check _dimI _dimV _dtensor__new__ _fix_weakref
    _found_inf_per_device _get_backward_hooks _get_backward_pre_hooks _get_growth_tracker
    _get_lr_called_within_step _get_name _get_scale_async _grad _grad_fn
    _group_tensors_by_device_and_dtype _has_symbolic_sizes_strides _indices _initial_step
    _is_all_true _is_any_true _is_initial _is_view _is_zerotensor _lazy_clone
    _lazy_init_scale_growth_tracker _load_from_state_dict _make_subclass _make_wrapper_subclass
    _maybe_opt_step _maybe_warn_non_full_backward_hook _named_members _neg_view
    _nested_tensor_size _nested_tensor_storage_offsets _nested_tensor_strides _nnz
    _optimizer_step_code _patch_step_function _philox_normal_ _philox_uniform_
    _post_accumulate_grad_hooks _process_value_according_to_param_policy _python_dispatch
    _reduce_ex_internal _register_load_state_dict_pre_hook _register_state_dict_hook
    _replicate_for_data_parallel _rev_view_func_unsafe _save_to_state_dict _slow_forward
    _sparse_mask_projection _to_dense _to_sparse _to_sparse_bsc _to_sparse_bsr _to_sparse_csc
    _to_sparse_csr _typed_storage _unscale_grads_ _update_lr _use_count _values _version
    _view_func _view_func_unsafe _wrapped_call_impl abs abs_ absolute absolute_ acos acos_ acosh
    acosh_ add add_ add_module add_param_group addbmm addbmm_ addcdiv addcdiv_ addcmul addcmul_
    addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax amin aminmax angle any apply
    apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh arcsinh_ arctan arctan2
    arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort argwhere as_strided as_strided_
    as_strided_scatter as_subclass asin asin_ asinh asinh_ atan atan2 atan2_ atan_ atanh atanh_
    backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount bitwise_and bitwise_and_
    bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or bitwise_or_
    bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ bmm bool broadcast_to
    buffers byte call_super_init cauchy_ ccol_indices cdouble ceil ceil_ cfloat chalf char
    children cholesky cholesky_inverse cholesky_solve chunk clamp clamp_ clamp_max clamp_max_
    clamp_min clamp_min_ clip clip_ clone coalesce col_indices compile conj conj_physical
    conj_physical_ const_data_ptr contiguous copy_ copysign copysign_ corrcoef cos cos_ cosh
    cosh_ count_nonzero cov cpu cross crow_indices cuda cummax cummin cumprod cumprod_ cumsum
    cumsum_ data data_ptr deg2rad deg2rad_ dense_dim dequantize det detach detach_ device diag
    diag_embed diagflat diagonal diagonal_scatter diff digamma digamma_ dim dim_order dist div
    div_ divide divide_ dot double dsplit dtype dump_patches eig element_size eq eq_ equal erf
    erf_ erfc erfc_ erfinv erfinv_ eval exp exp2 exp2_ exp_ expand expand_as expm1 expm1_
    exponential_ extra_repr fill_ fill_diagonal_ fix fix_ flatten flip fliplr flipud float
    float_power float_power_ floor floor_ floor_divide floor_divide_ fmax fmin fmod fmod_
    forward frac frac_ frexp gather gcd gcd_ ge ge_ geometric_ geqrf ger get_backoff_factor
    get_buffer get_device get_extra_state get_growth_factor get_growth_interval get_last_lr
    get_lr get_parameter get_scale get_submodule grad grad_dtype grad_fn greater greater_
    greater_equal greater_equal_ gt gt_ half hardshrink hash_tensor heaviside heaviside_ histc
    histogram hsplit hypot hypot_ i0 i0_ igamma igamma_ igammac igammac_ imag index index_add
    index_add_ index_copy index_copy_ index_fill index_fill_ index_put index_put_ index_reduce
    index_reduce_ index_select indices inner int int_repr inverse ipu is_coalesced is_complex
    is_conj is_contiguous is_cpu is_cuda is_distributed is_enabled is_floating_point
    is_inference is_ipu is_leaf is_maia is_meta is_mkldnn is_mps is_mtia is_neg is_nested
    is_nonzero is_pinned is_quantized is_same_size is_set_to is_shared is_signed is_sparse
    is_sparse_csr is_vulkan is_xla is_xpu isclose isfinite isinf isnan isneginf isposinf isreal
    istft item itemsize kron kthvalue layout lcm lcm_ ldexp ldexp_ le le_ lerp lerp_ less less_
    less_equal less_equal_ lgamma lgamma_ load_state_dict log log10 log10_ log1p log1p_ log2
    log2_ log_ log_normal_ log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and
    logical_and_ logical_not logical_not_ logical_or logical_or_ logical_xor logical_xor_ logit
    logit_ logsumexp long lstsq lt lt_ lu lu_solve mH mT map2_ map_ masked_fill masked_fill_
    masked_scatter masked_scatter_ masked_select matmul matrix_exp matrix_power max maximum mean
    median min minimum mm mode module_load modules moveaxis movedim msort mtia mul mul_
    multinomial multiply multiply_ mv mvlgamma mvlgamma_ name named_buffers named_children
    named_modules named_parameters nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum
    narrow narrow_copy nbytes ndim ndimension ne ne_ neg neg_ negative negative_ nelement new
    new_empty new_empty_strided new_full new_ones new_tensor new_zeros nextafter nextafter_
    nonzero nonzero_static norm normal_ not_equal not_equal_ numel numpy orgqr ormqr outer
    output_nr parameters permute pin_memory pinverse polygamma polygamma_ positive pow pow_
    prelu prod profile_hook_step put put_ q_per_channel_axis q_per_channel_scales
    q_per_channel_zero_points q_scale q_zero_point qr qscheme quantile rad2deg rad2deg_ random_
    ravel real reciprocal reciprocal_ record_stream register_backward_hook register_buffer
    register_forward_hook register_forward_pre_hook register_full_backward_hook
    register_full_backward_pre_hook register_hook register_load_state_dict_post_hook
    register_load_state_dict_pre_hook register_module register_parameter
    register_post_accumulate_grad_hook register_state_dict_post_hook
    register_state_dict_pre_hook register_step_post_hook register_step_pre_hook reinforce relu
    relu_ remainder remainder_ renorm renorm_ repeat repeat_interleave requires_grad
    requires_grad_ reshape reshape_as resize resize_ resize_as resize_as_ resize_as_sparse_
    resolve_conj resolve_neg retain_grad retains_grad roll rot90 round round_ row_indices rsqrt
    rsqrt_ scale scatter scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_ select
    select_scatter set_ set_backoff_factor set_extra_state set_growth_factor set_growth_interval
    set_submodule sgn sgn_ shape share_memory share_memory_ short sigmoid sigmoid_ sign sign_
    signbit sin sin_ sinc sinc_ sinh sinh_ size slice_inverse slice_scatter slogdet smm softmax
    solve sort sparse_dim sparse_mask sparse_resize_ sparse_resize_and_clear_ split
    split_with_sizes sqrt sqrt_ square square_ squeeze squeeze_ sspaddmm state_dict std step
    stft storage storage_offset storage_type stride sub sub_ subtract subtract_ sum sum_to_size
    svd swapaxes swapaxes_ swapdims swapdims_ symeig t t_ take take_along_dim tan tan_ tanh
    tanh_ tensor_split tile to to_dense to_empty to_mkldnn to_padded_tensor to_sparse
    to_sparse_bsc to_sparse_bsr to_sparse_coo to_sparse_csc to_sparse_csr tolist topk trace
    train transpose transpose_ triangular_solve tril tril_ triu triu_ true_divide true_divide_
    trunc trunc_ type type_as unbind unflatten unfold uniform_ unique unique_consecutive
    unsafe_chunk unsafe_split unsafe_split_with_sizes unscale_ unsqueeze unsqueeze_
    untyped_storage update values var vdot view view_as volatile vsplit where xlogy xlogy_ xpu
    zero_ zero_grad
    """.split()  # noqa: SIM905 - one name a word keeps the list readable
)
