/** A reference to an entity another subgraph owns: only its key travels. */
export interface EntityReference {
  id: string;
}

/** A member of a union of entities; the concrete type is decided from the record. */
interface TypedEntityReference<TypeName extends string> extends EntityReference {
  __typename: TypeName;
}

export type DocumentHolderModel = TypedEntityReference<'BusinessAccount' | 'CustomerAccount' | 'BeneficialOwner'>;
export type ExceptionEntityModel = TypedEntityReference<'FinancialAccount' | 'CustomerAccount' | 'Transaction'>;
