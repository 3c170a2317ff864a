// Package hf moves oryx checkpoints to and from the Hugging Face world: Export writes a checkpoint as
// model.safetensors with Hugging Face / fla-style tensor names, a config.json that states every semantic
// choice of the architecture (Config), and modeling_oryx.py, a PyTorch reference implementation of every
// variant (ModelingPy: torch only; a transformers PreTrainedModel through config.json's auto_map when
// transformers is importable), and what a transformers user needs besides (ExportWith): the run's tokenizer as
// tokenizer.json with tokenizer_config.json and special_tokens_map.json (the byte tokenizer in the tokenizers
// library's format), its special-token ids in config.json and generation_config.json, and a README.md model card.
// Import reads such a directory back into a checkpoint, bit for bit (the tokenizer too), and refuses anything
// it could not run exactly. The safetensors reader and writer are here too (the format is
// a length, a JSON header and raw little-endian bytes). The Go code never runs Python; the tests check
// modeling_oryx.py against the Go model when torch is installed.
//
// The names follow flash-linear-attention (fla) and transformers conventions — model.embeddings,
// model.layers.N.{attn_norm, attn.*, mlp_norm, mlp.*}, model.norm, lm_head — so that scripts that look
// weights up by name find them, and projections are stored as PyTorch Linear weights [out, in]. The
// architecture is this project's (one shared K/V/G/O set read by both mixers, convolutions on K and V
// only), so an export is not a checkpoint for fla's classes: its model_type is its own (oryx_transformer,
// oryx_mamba2, oryx_gdn, oryx_tm, oryx_tg) and architectures names the variant's class of modeling_oryx.py
// (OryxTGForCausalLM, ...). config.json carries the exact oryx.Config under "oryx_config" next to the keys of
// NewConfig; modeling_oryx.py refuses a config.json that is not exactly what NewConfig writes for it, as
// Import does (the keys transformers' save_pretrained adds aside: TransformersKeys).
//
// The mapping (N = layer, h = heads, dk/dv = key/value dims per head, d = d_model, F = MLP width, W = conv
// width). Every conversion is a reshape: the bytes are copied unchanged.
//
//	oryx variable                 HF / fla name                           shape (oryx → HF)
//	/embeddings/embeddings        model.embeddings.weight                 [V, d]
//	/layer_N/attn_norm/weight     model.layers.N.attn_norm.weight         [d]
//	/layer_N/wq_attn/weight       model.layers.N.attn.q_proj.weight       [h, dk, d] → [h·dk, d]   attention query (transformer, oryx-*)
//	/layer_N/wq_linear/weight     model.layers.N.attn.q_proj.weight       [h, dk, d] → [h·dk, d]   linear query (mamba2, gdn)
//	                              model.layers.N.attn.linear_q_proj.weight                          linear query (oryx-tm, oryx-tg)
//	/layer_N/wk/weight            model.layers.N.attn.k_proj.weight       [h, dk, d] → [h·dk, d]   shared keys
//	/layer_N/wv/weight            model.layers.N.attn.v_proj.weight       [h, dv, d] → [h·dv, d]   shared values
//	/layer_N/conv_k/weight        model.layers.N.attn.k_conv1d.weight     [h·dk, W] → [h·dk, 1, W] when conv_width > 0
//	/layer_N/conv_v/weight        model.layers.N.attn.v_conv1d.weight     [h·dv, W] → [h·dv, 1, W]
//	/layer_N/dt_proj/weight       model.layers.N.attn.dt_proj.weight      [h, d]                   Mamba-2 mixer (mamba2, oryx-tm)
//	/layer_N/d_skip/weight        model.layers.N.attn.D                   [h]                      Mamba-2 mixer
//	/layer_N/decay_proj/weight    model.layers.N.attn.a_proj.weight       [h, d]                   GDN mixer (gdn, oryx-tg)
//	/layer_N/beta_proj/weight     model.layers.N.attn.b_proj.weight       [h, d]                   GDN mixer
//	/layer_N/dt_bias/weight       model.layers.N.attn.dt_bias             [h]                      both linear mixers
//	/layer_N/a_log/weight         model.layers.N.attn.A_log               [h]                      both linear mixers
//	/layer_N/wg/weight            model.layers.N.attn.g_proj.weight       [h, dv, d] → [h·dv, d]   output gate
//	/layer_N/out_norm/weight      model.layers.N.attn.o_norm.weight       [dv], or [h·dv] with output_norm "full"
//	/layer_N/wo/weight            model.layers.N.attn.o_proj.weight       [d, h, dv] → [d, h·dv]
//	/layer_N/mlp_norm/weight      model.layers.N.mlp_norm.weight          [d]
//	/layer_N/mlp_gate/weight      model.layers.N.mlp.gate_proj.weight     [F, d]                   SwiGLU
//	/layer_N/mlp_up/weight        model.layers.N.mlp.up_proj.weight       [F, d]
//	/layer_N/mlp_down/weight      model.layers.N.mlp.down_proj.weight     [d, F]
//	/final_norm/weight            model.norm.weight                       [d]
//	/lm_head/weight               lm_head.weight                          [V, d]                   only without tied embeddings
//
// Per variant: transformer has q_proj (attention) and no linear-mixer tensors; mamba2 and gdn have
// q_proj (their linear query) and their mixer's tensors; oryx-tm and oryx-tg have q_proj (attention),
// linear_q_proj and the Mamba-2 or GDN tensors. The weights keep the checkpoint's dtype (float32 for the
// checkpoints the project writes); optimizer state and counters are not exported. Params(config) lists the
// mapping for a config. Import converts bfloat16 and float16 weights to float32 (exactly) and keeps float32
// and float64.
package hf
