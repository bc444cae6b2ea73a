//! `#[derive(Animatable)]` for [wgpu-tween](https://docs.rs/wgpu-tween): a struct whose
//! fields are themselves lerped `Animatable`s (`f32`, glam `Vec2`/`Vec3`/`Vec4`, `Color`,
//! `Angle`, arrays, or other derived structs) animates as their lanes side by side, at most
//! four in all. Use it through wgpu-tween's `derive` feature (`wgpu_tween::Animatable`).
//!
//! The generated impl packs the fields' lanes in declaration order, and heads each field for
//! its own `path_end` (an `Angle` field turns the short way). Two checks run at compile
//! time: the lanes must add up to at most four (checked where the struct is defined; the
//! error names the struct and its lane count), and every field must interpolate by `Lerp` (a
//! `Quat` field, which slerps, cannot share a row with others). A value of more lanes (a
//! transform, a particle's position and color) is animated as one motion per field, all
//! writing into one target: see "More than four lanes" on `wgpu_tween::Animatable`.

use proc_macro::TokenStream;
use quote::{quote, quote_spanned};
use syn::{parse_macro_input, Data, DeriveInput, Fields};

/// Derives `wgpu_tween::Animatable` for a struct of lerped `Animatable` fields.
#[proc_macro_derive(Animatable)]
pub fn derive_animatable(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn expand(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let name = &input.ident;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            name,
            "#[derive(Animatable)] works on structs only",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "#[derive(Animatable)] does not support generic structs",
        ));
    }
    let fields: Vec<_> = match &data.fields {
        Fields::Named(named) => named.named.iter().collect(),
        Fields::Unnamed(unnamed) => unnamed.unnamed.iter().collect(),
        Fields::Unit => Vec::new(),
    };
    if fields.is_empty() {
        return Err(syn::Error::new_spanned(
            name,
            "#[derive(Animatable)] needs at least one field",
        ));
    }
    let types: Vec<_> = fields.iter().map(|f| &f.ty).collect();
    let members: Vec<_> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| match &f.ident {
            Some(ident) => quote!(#ident),
            None => {
                let index = syn::Index::from(i);
                quote!(#index)
            }
        })
        .collect();
    let krate = quote!(::wgpu_tween);
    let lanes_of = |ty: &syn::Type| quote!(<#ty as #krate::Animatable>::LANES);
    let total = types.iter().map(|ty| lanes_of(ty));
    // Each field's lanes within the struct's: after the lanes of the fields before it.
    let ranges: Vec<_> = (0..types.len())
        .map(|i| {
            let start: Vec<_> = types[..i].iter().map(|ty| lanes_of(ty)).collect();
            let lanes = lanes_of(types[i]);
            quote!((0usize #(+ #start)*)..(0usize #(+ #start)* + #lanes))
        })
        .collect();
    let to_lanes = members.iter().zip(&ranges).map(|(member, range)| {
        quote! {
            let field = #krate::Animatable::to_lanes(self.#member);
            let range = #range;
            lanes[range.clone()].copy_from_slice(&field[..range.len()]);
        }
    });
    let from_lanes = types
        .iter()
        .zip(&members)
        .zip(&ranges)
        .map(|((ty, member), range)| {
            quote! {
                #member: {
                    let range = #range;
                    let mut field = [0.0f32; 4];
                    field[..range.len()].copy_from_slice(&lanes[range]);
                    <#ty as #krate::Animatable>::from_lanes(field)
                }
            }
        });
    let path_ends = types.iter().zip(&members).map(|(ty, member)| {
        quote!(#member: <#ty as #krate::Animatable>::path_end(from.#member, to.#member))
    });
    let lerp_checks = types.iter().map(|ty| {
        quote! {
            assert!(
                matches!(<#ty as #krate::Animatable>::INTERPOLATION, #krate::Interpolation::Lerp),
                "#[derive(Animatable)]: every field must interpolate by Lerp"
            );
        }
    });
    let lane_checks = lane_count_checks(name);
    Ok(quote! {
        #lane_checks
        impl #krate::Animatable for #name {
            const LANES: usize = {
                #(#lerp_checks)*
                0usize #(+ #total)*
            };
            const INTERPOLATION: #krate::Interpolation = #krate::Interpolation::Lerp;
            #[inline]
            fn to_lanes(self) -> [f32; 4] {
                let mut lanes = [0.0f32; 4];
                #(#to_lanes)*
                lanes
            }
            #[inline]
            fn from_lanes(lanes: [f32; 4]) -> Self {
                Self { #(#from_lanes),* }
            }
            #[inline]
            fn path_end(from: Self, to: Self) -> Self {
                Self { #(#path_ends),* }
            }
        }
    })
}

/// A constant, evaluated where the struct is defined, that fails for more than four lanes
/// with a message naming the struct and its count (a const panic cannot format a number, so
/// one assertion per count up to 16).
fn lane_count_checks(name: &syn::Ident) -> proc_macro2::TokenStream {
    let advice = "but a motion animates at most 4 f32 lanes. Animate the fields as separate \
                  motions (one per field, each writing its part of one target with \
                  `TargetId::at(index, stride, offset)`): see \"More than four lanes\" on \
                  `wgpu_tween::Animatable`";
    let counts = (5..=16usize).map(|n| {
        let message = format!(
            "#[derive(Animatable)] on `{name}`: its fields have {n} lanes in all, {advice}"
        );
        quote!(assert!(lanes != #n, #message);)
    });
    let beyond = format!(
        "#[derive(Animatable)] on `{name}`: its fields have more than 16 lanes in all, {advice}"
    );
    quote_spanned! {name.span()=>
        const _: () = {
            let lanes = <#name as ::wgpu_tween::Animatable>::LANES;
            #(#counts)*
            assert!(lanes <= 4, #beyond);
        };
    }
}
