<?php
/**
 * Re-sends every public post of the synced types, one batch at a time, so
 * neither a browser request nor a CLI run holds the whole site in memory.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Reindexer {

	const BATCH = 20;

	private Rtac_Settings $settings;
	private Rtac_Sync $sync;

	public function __construct( Rtac_Settings $settings, Rtac_Sync $sync ) {
		$this->settings = $settings;
		$this->sync     = $sync;
	}

	/** How many posts a full re-index sends. */
	public function total(): int {
		return (int) $this->query( 0, 1 )->found_posts;
	}

	/**
	 * Sends posts [offset, offset + size) in ID order.
	 *
	 * @return array{total:int, offset:int, next_offset:int, sent:int, done:bool, error:string|null}
	 */
	public function batch( int $offset, int $size = self::BATCH ): array {
		$offset = max( 0, $offset );
		$size   = max( 1, min( 100, $size ) );
		$result = array(
			'total'       => 0,
			'offset'      => $offset,
			'next_offset' => $offset,
			'sent'        => 0,
			'done'        => false,
			'error'       => null,
		);
		if ( ! $this->settings->is_configured() ) {
			$result['error'] = __( 'The connection to the assistant service is not set up yet.', 'rtac' );
			return $result;
		}

		$query           = $this->query( $offset, $size );
		$result['total'] = (int) $query->found_posts;
		$documents       = array();
		foreach ( $query->posts as $id ) {
			$post = get_post( (int) $id );
			try {
				if ( $post && Rtac_Document::is_public( $post ) ) {
					$documents[] = Rtac_Document::payload( $post );
				}
			} catch ( Throwable $e ) {
				continue; // A filter of the page broke while rendering this post: it is left out of this run.
			}
		}
		if ( ! $this->sync->upsert( $documents ) ) {
			// The offset stays put so the same batch can be tried again.
			$result['error'] = __( 'The assistant service did not accept the batch. Check the connection and try again.', 'rtac' );
			return $result;
		}
		$result['sent']        = count( $documents );
		$result['next_offset'] = $offset + count( $query->posts );
		$result['done']        = count( $query->posts ) < $size || $result['next_offset'] >= $result['total'];
		return $result;
	}

	/** POST /wp-json/rtac/v1/reindex {offset, batch}. */
	public function rest_batch( WP_REST_Request $request ) {
		$result = $this->batch( (int) $request->get_param( 'offset' ), (int) $request->get_param( 'batch' ) );
		if ( null !== $result['error'] ) {
			return new WP_Error( 'rtac_reindex_failed', $result['error'], array_merge( $result, array( 'status' => 502 ) ) );
		}
		return new WP_REST_Response( $result, 200 );
	}

	private function query( int $offset, int $size ): WP_Query {
		return new WP_Query(
			array(
				'post_type'              => Rtac_Document::synced_types(),
				'post_status'            => 'publish',
				'has_password'           => false,
				'orderby'                => 'ID',
				'order'                  => 'ASC',
				'posts_per_page'         => $size,
				'offset'                 => $offset,
				'fields'                 => 'ids',
				'ignore_sticky_posts'    => true,
				'suppress_filters'       => true,
				'lang'                   => '', // Polylang: every language, not the current one.
				'update_post_term_cache' => false,
			)
		);
	}
}
